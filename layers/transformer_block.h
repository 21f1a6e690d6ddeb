#pragma once
// One pre-norm block: x <- x + Attn(N1(x)); x <- x + MLP(N2(x)), or with parallel_residual
// x <- x + Attn(N1(x)) + MLP(N2(x)) (resid_mid is then x + Attn(N1(x)), as a hook sees it). Hooks
// (core/observe/activation_hooks.h) see <prefix>.resid_pre, .ln1.out, .resid_mid, .ln2.out, .mlp.out and .resid_post
// [B, T, C] where the block has them (resid_mid only with an MLP), besides the attention's own. Norms and MLP switch
// off by config, and the residual too (the paper's single-layer model returns Attn(x) itself), so the paper's
// attention-only stack is a configuration, not a special class.
#include <memory>

#include "layers/mlp.h"
#include "layers/multi_head_attention.h"
#include "layers/norm_layer.h"

namespace sinklab {

struct BlockSpec {
  AttentionSpec attention;
  NormKind norm = NormKind::none;
  float norm_eps = 1e-5f;
  int mlp_hidden = 0;
  Activation mlp_activation = Activation::gelu;
  bool mlp_gated = false;
  bool mlp_bias = false;
  bool residual = true;
  bool parallel_residual = false;  // x <- x + Attn(N1(x)) + MLP(N2(x)) (GPT-NeoX)
};

class TransformerBlock : public Module {
 public:
  TransformerBlock(ParameterStore& store, std::string prefix, const BlockSpec& spec, InitSpec init, int layer_index,
                   const AttentionObservers* observers, const AttentionAblation* ablation = nullptr,
                   const ActivationHookSlot* hooks = nullptr, const KvCacheSlot* kv_cache = nullptr);
  Tensor forward(Graph& g, const Tensor& x) const;
  const MultiHeadAttention& attention() const { return attn_; }

 private:
  BlockSpec spec_;
  const ActivationHookSlot* hooks_;
  std::unique_ptr<NormLayer> ln1_, ln2_;
  MultiHeadAttention attn_;
  std::unique_ptr<Mlp> mlp_;
};

}  // namespace sinklab
