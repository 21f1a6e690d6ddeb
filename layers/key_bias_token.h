#pragma once
// The key-bias token (Gu et al. 2024; model.attention.key_bias): one learned key k*_h per head with
// value 0, seen by every query. Row i of head h gets one extra logit b_i = scale * q_i . k*_h, which
// attention normalizes together with the real keys as a leading slot (layers/attention_weights.h):
// the slot can take a row's mass without adding anything to the output. The parameter is
// `<attn>.key_bias` [H, D]. With rope, q is rotated and k* is not: k* has no position.
#include "core/graph.h"
#include "layers/linear.h"
#include "layers/module.h"

namespace sinklab {

class KeyBiasToken : public Module {
 public:
  // `attention_prefix` is the owning attention module's, so the parameter is named <attn>.key_bias.
  // Initialized like the entries of W_K ([heads * head_dim, d_model], drawn with `init`).
  KeyBiasToken(ParameterStore& store, const std::string& attention_prefix, int heads, int head_dim, int d_model,
               InitSpec init);
  // q [H, B, T, D] (contiguous) -> slot logits [H, B, T] = scale * q . k*_h
  Tensor logits(Graph& g, const Tensor& q, float scale) const;
  Tensor key() const { return param(key_); }  // [H, D]

 protected:
  void initialize_own(Rng& rng) override;

 private:
  int heads_, head_dim_, d_model_;
  InitSpec init_;
  ParameterStore::Id key_;
};

}  // namespace sinklab
