#include "layers/transformer_block.h"

#include "core/ops/elementwise.h"

namespace sinklab {

TransformerBlock::TransformerBlock(ParameterStore& store, std::string prefix, const BlockSpec& spec, InitSpec init,
                                   int layer_index, const AttentionObservers* observers,
                                   const AttentionAblation* ablation, const ActivationHookSlot* hooks,
                                   const KvCacheSlot* kv_cache)
    : Module(store, std::move(prefix)),
      spec_(spec),
      hooks_(hooks),
      ln1_(spec.norm != NormKind::none ? std::make_unique<NormLayer>(store, child_prefix("ln1"), spec.norm,
                                                                     spec.attention.d_model, spec.norm_eps)
                                       : nullptr),
      attn_(store, child_prefix("attn"), spec.attention, init, layer_index, observers, ablation, hooks, kv_cache) {
  if (ln1_) add_child(*ln1_);
  add_child(attn_);
  if (spec.mlp_hidden > 0) {
    if (spec.norm != NormKind::none) {
      ln2_ = std::make_unique<NormLayer>(store, child_prefix("ln2"), spec.norm, spec.attention.d_model, spec.norm_eps);
      add_child(*ln2_);
    }
    mlp_ = std::make_unique<Mlp>(store, child_prefix("mlp"), spec.attention.d_model, spec.mlp_hidden,
                                 spec.mlp_activation, spec.mlp_bias, init, spec.mlp_gated);
    add_child(*mlp_);
  }
}

Tensor TransformerBlock::forward(Graph& g, const Tensor& x) const {
  if (!hooks_ || !hooks_->active()) {
    Tensor a = attn_.forward(g, ln1_ ? ln1_->forward(g, x) : x);
    Tensor h = spec_.residual ? add(g, x, a) : a;
    if (!mlp_) return h;
    const Tensor& mlp_source = spec_.parallel_residual ? x : h;
    Tensor m = mlp_->forward(g, ln2_ ? ln2_->forward(g, mlp_source) : mlp_source);
    return spec_.residual ? add(g, h, m) : m;
  }
  // The same pass, with every named activation handed to the hooks.
  hooks_->visit(prefix(), "resid_pre", x);
  Tensor attn_in = x;
  if (ln1_) {
    attn_in = ln1_->forward(g, x);
    hooks_->visit(prefix(), "ln1.out", attn_in);
  }
  Tensor a = attn_.forward(g, attn_in);
  Tensor h = spec_.residual ? add(g, x, a) : a;
  if (mlp_) {
    if (spec_.residual) hooks_->visit(prefix(), "resid_mid", h);
    Tensor mlp_in = spec_.parallel_residual ? x : h;
    if (ln2_) {
      mlp_in = ln2_->forward(g, mlp_in);
      hooks_->visit(prefix(), "ln2.out", mlp_in);
    }
    Tensor m = mlp_->forward(g, mlp_in);
    hooks_->visit(prefix(), "mlp.out", m);
    h = spec_.residual ? add(g, h, m) : m;
  }
  hooks_->visit(prefix(), "resid_post", h);
  return h;
}

}  // namespace sinklab
