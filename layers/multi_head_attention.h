#pragma once
// Causal multi-head self-attention (docs/design.md, layers):
//   projections -> scores (scale: none, 1/sqrt(d_head) or 1/T) -> causal mask + normalizer per row
//   -> weights x V -> heads concatenated -> W_O.
// Heads are head-major [H, B, T, D]: Q/K/V come out of one product per projection batched over heads,
// and W_O sums over heads, so no step copies heads around. Head width is d_model/H (split), d_model
// (full, the paper's) or fixed.
#include <memory>

#include "core/observe/attention_observer.h"
#include "layers/model_config.h"
#include "layers/linear.h"
#include "layers/normalizers/normalizer.h"

namespace sinklab {

struct AttentionSpec {
  int d_model = 16;
  int heads = 1;
  int head_dim = 16;
  bool bias = false;
  bool rope = false;
  AttentionConfig config;
};

class MultiHeadAttention : public Module {
 public:
  MultiHeadAttention(ParameterStore& store, std::string prefix, const AttentionSpec& spec, InitSpec init, int layer_index,
                     const AttentionObservers* observers);
  Tensor forward(Graph& g, const Tensor& x) const;  // x [B, T, d_model] -> [B, T, d_model]

  const Normalizer& normalizer() const { return *normalizer_; }
  float logit_scale() const { return scale_; }
  int heads() const { return spec_.heads; }

 protected:
  void initialize_own(Rng& rng) override;

 private:
  AttentionSpec spec_;
  int layer_index_;
  const AttentionObservers* observers_;
  std::unique_ptr<Normalizer> normalizer_;
  float scale_;
  Linear w_q_, w_k_, w_v_, w_o_;
  ParameterStore::Id normalizer_params_ = -1;  // [H, P] when the normalizer learns per-head scalars
};

}  // namespace sinklab
