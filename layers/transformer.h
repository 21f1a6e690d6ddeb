#pragma once
// The model: optional input projection or token embedding, optional positional encoding, a stack of
// TransformerBlocks, an optional final norm and output head (its own Linear, or the token embedding
// transposed with model.tie_embeddings). Everything is chosen by ModelConfig.
#include <memory>
#include <vector>

#include "core/observe/activation_hooks.h"
#include "core/observe/attention_observer.h"
#include "layers/model_config.h"
#include "layers/embedding.h"
#include "layers/kv_cache.h"
#include "layers/linear.h"
#include "layers/norm_layer.h"
#include "layers/transformer_block.h"

namespace sinklab {

struct ModelShape {
  int input_dim = 16;    // width of the task's input vectors (ignored for token input)
  int output_dim = 16;   // width the loss compares against
  int max_seq_len = 16;  // for learned / sinusoidal positions
};

class Transformer : public Module {
 public:
  Transformer(ParameterStore& store, const ModelConfig& config, const ModelShape& shape);

  Tensor forward(Graph& g, const Tensor& x) const;  // x [B, T, input_dim] -> [B, T, output_dim]
  Tensor forward_tokens(Graph& g, const int32_t* ids, int64_t batch, int64_t seq_len) const;
  // The same pass (the same bits) one block at a time: a block's activations are dropped once the next
  // block has read its output, so the pass holds two blocks' activations instead of every block's (an
  // open model's long window). Only the output lives in `g`, which must have gradients off. Observers
  // and hooks still see every activation, but a hook must not keep one past its call. No KV cache.
  Tensor forward_tokens_block_by_block(Graph& g, const int32_t* ids, int64_t batch, int64_t seq_len) const;

  AttentionObservers& observers() { return observers_; }
  // Evaluation-only ablation of the BOS key (layers/attention_ablation.h), read by every attention
  // layer; none by default. Throws std::invalid_argument for a head the model does not have.
  void set_ablation(AttentionAblation ablation);
  const AttentionAblation& ablation() const { return ablation_; }
  // Hooks that see (and may edit) every named activation of the following passes, or none (nullptr):
  // core/observe/activation_hooks.h. A hooked pass must run with gradients off. Besides the blocks'
  // names: final_norm.out and logits [B, T, output_dim].
  void set_hooks(ActivationHooks* hooks) { hooks_.set(hooks); }
  // A KV cache (layers/kv_cache.h) the following passes read and extend, or none (nullptr): each pass
  // over [1, T] token ids then holds the T tokens after the cached ones, at positions cache.size() ..
  // (learned positions) or turned by their index in the cache (RoPE). Throws std::invalid_argument
  // when some layer cannot decode from a cache (kv_cache_refusal) or the cache's shape differs.
  void set_kv_cache(KvCache* cache);
  KvCache* kv_cache() const { return kv_cache_.cache; }
  // Why the model cannot decode from a KV cache, "" when it can.
  std::string kv_cache_refusal() const;
  ActivationHooks* hooks() const { return hooks_.hooks(); }
  // What a pass reads besides the weights. A pass run from inside another pass's hook (a Python hook
  // may call the model) takes the outer pass's context aside and restores it when it ends, so each pass
  // keeps its own observers, ablation, hooks and KV cache.
  struct PassContext {
    std::vector<AttentionObserver*> observers;
    AttentionAblation ablation;
    ActivationHooks* hooks = nullptr;
    KvCache* kv_cache = nullptr;
  };
  // The current context; the model is left with no observer, ablation, hook or KV cache.
  PassContext take_pass_context();
  void restore_pass_context(PassContext context);
  int layers() const { return static_cast<int>(blocks_.size()); }
  int heads() const { return config_.heads; }
  const TransformerBlock& block(int i) const { return *blocks_[static_cast<size_t>(i)]; }
  // True when an unobserved pass over rows of seq_len tiles some layer's attention (no [T, T] arrays,
  // layers/tiled_attention.h); an observed pass never does.
  bool tiles_attention(int64_t seq_len) const;
  // True when observing a pass over rows of seq_len would change some layer's attention path (an
  // unobserved pass fuses or tiles it, an observed one materializes the weights): the two agree only to
  // rounding, so a trainer that observed its training pass would let logging change the weights.
  bool observing_changes_attention(int64_t seq_len) const;

 protected:
  void initialize_own(Rng& rng) override;

 private:
  Tensor body(Graph& g, Tensor h) const;
  // The parts of body: positions added to the embedded input (and the KV cache's append begun), and
  // the final norm and output head.
  Tensor with_positions(Graph& g, Tensor h) const;
  Tensor output(Graph& g, Tensor h) const;

  ModelConfig config_;
  ModelShape shape_;
  AttentionObservers observers_;
  AttentionAblation ablation_;
  ActivationHookSlot hooks_;
  KvCacheSlot kv_cache_;
  std::unique_ptr<Linear> input_projection_;
  std::unique_ptr<Embedding> embedding_;
  ParameterStore::Id pos_embedding_ = -1;  // [max_seq_len, d_model], learned positions
  std::vector<float> sinusoid_;            // [max_seq_len, d_model], fixed positions
  std::vector<std::unique_ptr<TransformerBlock>> blocks_;
  std::unique_ptr<NormLayer> final_norm_;
  std::unique_ptr<Linear> output_head_;
};

}  // namespace sinklab
