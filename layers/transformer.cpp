#include "layers/transformer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "core/ops/elementwise.h"
#include "core/ops/matmul_op.h"

namespace sinklab {
namespace {

// A fresh arena copy of x (any layout), without a gradient.
Tensor copied(Graph& g, const Tensor& x) {
  Tensor y = g.new_tensor(x.shape(), false);
  const int64_t B = x.dim(0), T = x.dim(1), C = x.dim(2);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t c = 0; c < C; ++c) y.data()[(b * T + t) * C + c] = x.at({b, t, c});
  return y;
}

}  // namespace

Transformer::Transformer(ParameterStore& store, const ModelConfig& config, const ModelShape& shape)
    : Module(store, ""), config_(config), shape_(shape) {
  const InitSpec init{config.init, static_cast<float>(config.init_std)};
  const int d = config.d_model;
  if (config.input == InputKind::tokens) {
    if (config.vocab_size <= 0) throw std::invalid_argument("model.vocab_size must be > 0 for token input");
    embedding_ =
        std::make_unique<Embedding>(store, "embedding", config.vocab_size, d, static_cast<float>(config.init_std));
    add_child(*embedding_);
  } else if (config.input_projection) {
    input_projection_ = std::make_unique<Linear>(store, "input_proj", shape.input_dim, d, config.bias, init);
    add_child(*input_projection_);
  } else if (shape.input_dim != d) {
    throw std::invalid_argument("model.d_model (" + std::to_string(d) + ") must equal the task's input width (" +
                                std::to_string(shape.input_dim) + ") unless model.input_projection is true");
  }
  if (config.positional == Positional::learned)
    pos_embedding_ = declare("pos_embedding.weight", {shape.max_seq_len + config.position_offset, d});
  if (config.positional == Positional::sinusoidal) {
    sinusoid_.resize(static_cast<size_t>(shape.max_seq_len) * static_cast<size_t>(d));
    for (int t = 0; t < shape.max_seq_len; ++t)
      for (int j = 0; j < d; ++j) {
        const double freq = std::pow(10000.0, -2.0 * (j / 2) / d);
        sinusoid_[static_cast<size_t>(t * d + j)] =
            static_cast<float>(j % 2 == 0 ? std::sin(t * freq) : std::cos(t * freq));
      }
  }
  BlockSpec block;
  block.attention = {d,
                     config.heads,
                     resolved_head_dim(config),
                     config.bias,
                     config.positional == Positional::rope,
                     config.attention,
                     resolved_kv_heads(config),
                     config.rope,
                     static_cast<float>(config.norm_eps)};
  block.norm = config.norm;
  block.norm_eps = static_cast<float>(config.norm_eps);
  block.mlp_hidden = config.mlp_hidden;
  block.mlp_activation = config.mlp_activation;
  block.mlp_gated = config.mlp_gated;
  block.mlp_bias = resolved_bias(config.mlp_bias, config.bias);
  block.residual = config.residual;
  block.parallel_residual = config.parallel_residual;
  for (int l = 0; l < config.layers; ++l) {
    blocks_.push_back(std::make_unique<TransformerBlock>(store, "blocks." + std::to_string(l), block, init, l,
                                                         &observers_, &ablation_, &hooks_, &kv_cache_));
    add_child(*blocks_.back());
  }
  if (config.norm != NormKind::none) {
    final_norm_ = std::make_unique<NormLayer>(store, "final_norm", config.norm, d, static_cast<float>(config.norm_eps));
    add_child(*final_norm_);
  }
  if (config.tie_embeddings) {
    // logits = h E^T: the output width is the vocabulary, whatever the task asked for.
    if (!embedding_ || !config.output_head)
      throw std::invalid_argument("model.tie_embeddings needs input: tokens and output_head: true");
    if (shape.output_dim != config.vocab_size)
      throw std::invalid_argument("model.tie_embeddings: the output width (" + std::to_string(shape.output_dim) +
                                  ") must equal model.vocab_size (" + std::to_string(config.vocab_size) + ")");
  } else if (config.output_head) {
    output_head_ = std::make_unique<Linear>(store, "output_head", d, shape.output_dim,
                                            resolved_bias(config.output_head_bias, config.bias), init);
    add_child(*output_head_);
  } else if (shape.output_dim != d) {
    throw std::invalid_argument("model.d_model (" + std::to_string(d) + ") must equal the task's output width (" +
                                std::to_string(shape.output_dim) + ") unless model.output_head is true");
  }
}

void Transformer::set_ablation(AttentionAblation ablation) {
  for (const HeadRef& h : ablation.heads())
    if (h.layer < 0 || h.layer >= layers() || h.head < 0 || h.head >= config_.heads)
      throw std::invalid_argument("ablation: " + head_label(h) + " is not a head of this model (" +
                                  std::to_string(layers()) + " layer(s) x " + std::to_string(config_.heads) +
                                  " head(s))");
  ablation_ = std::move(ablation);
}

void Transformer::initialize_own(Rng& rng) {
  if (pos_embedding_ < 0) return;
  Tensor t = param(pos_embedding_);
  rng.fill_normal({t.data(), static_cast<size_t>(t.numel())}, 0.0f, static_cast<float>(config_.init_std));
}

Tensor Transformer::forward(Graph& g, const Tensor& x) const {
  if (x.rank() != 3 || x.dim(2) != shape_.input_dim)
    throw std::invalid_argument("model input must be [B, T, " + std::to_string(shape_.input_dim) + "], got " +
                                x.shape().str());
  return body(g, input_projection_ ? input_projection_->forward(g, x) : x);
}

Tensor Transformer::forward_tokens(Graph& g, const int32_t* ids, int64_t batch, int64_t seq_len) const {
  if (!embedding_) throw std::logic_error("forward_tokens: model.input is not tokens");
  return body(g, embedding_->forward(g, ids, batch, seq_len));
}

std::string Transformer::kv_cache_refusal() const {
  if (!embedding_) return "the model reads vectors, not token ids";
  for (const auto& b : blocks_)
    if (std::string why = b->attention().kv_cache_refusal(); !why.empty()) return why;
  return "";
}

Transformer::PassContext Transformer::take_pass_context() {
  PassContext context{observers_.set_aside(), std::exchange(ablation_, AttentionAblation()), hooks_.hooks(),
                      kv_cache_.cache};
  hooks_.set(nullptr);
  kv_cache_.cache = nullptr;
  return context;
}

void Transformer::restore_pass_context(PassContext context) {
  observers_.restore(std::move(context.observers));
  ablation_ = std::move(context.ablation);
  hooks_.set(context.hooks);
  kv_cache_.cache = context.kv_cache;
}

void Transformer::set_kv_cache(KvCache* cache) {
  if (cache) {
    if (const std::string why = kv_cache_refusal(); !why.empty()) throw std::invalid_argument("KV cache: " + why);
    if (cache->layers() != layers() || cache->kv_heads() != resolved_kv_heads(config_) ||
        cache->head_dim() != resolved_head_dim(config_))
      throw std::invalid_argument("KV cache: its layers, key/value heads or head width differ from the model's");
  }
  kv_cache_.cache = cache;
}

Tensor Transformer::body(Graph& g, Tensor h) const {
  h = with_positions(g, h);
  for (const auto& b : blocks_) h = b->forward(g, h);
  if (kv_cache_.cache) kv_cache_.cache->commit();
  return output(g, h);
}

Tensor Transformer::with_positions(Graph& g, Tensor h) const {
  const int64_t T = h.dim(1);
  // With a KV cache the new tokens follow the cached ones.
  const int64_t first = kv_cache_.cache ? kv_cache_.cache->size() : 0;
  if (first + T > shape_.max_seq_len)
    throw std::invalid_argument("sequence length " + std::to_string(first + T) + " exceeds the model's " +
                                std::to_string(shape_.max_seq_len));
  if (kv_cache_.cache) kv_cache_.cache->begin_append(T);
  if (pos_embedding_ >= 0) h = add(g, h, param(pos_embedding_).slice(0, config_.position_offset + first, T));
  if (!sinusoid_.empty())
    h = add(g, h,
            Tensor(const_cast<float*>(sinusoid_.data()) + first * config_.d_model, nullptr, Shape{T, config_.d_model}));
  if (hooks_.active()) {
    if (g.grad_enabled()) throw std::logic_error("activation hooks need a pass with gradients off");
    // A hook may edit blocks.0.resid_pre in place: never the caller's own input.
    if (!input_projection_ && !embedding_ && pos_embedding_ < 0 && sinusoid_.empty()) h = copied(g, h);
  }
  return h;
}

Tensor Transformer::output(Graph& g, Tensor h) const {
  if (final_norm_) {
    h = final_norm_->forward(g, h);
    hooks_.visit("final_norm", "out", h);
  }
  if (output_head_) h = output_head_->forward(g, h);
  if (config_.tie_embeddings) h = matmul(g, h, embedding_->weight().transpose(0, 1));  // [B, T, C] x [C, V]
  hooks_.visit("", "logits", h);
  return h;
}

Tensor Transformer::forward_tokens_block_by_block(Graph& g, const int32_t* ids, int64_t batch, int64_t seq_len) const {
  if (!embedding_) throw std::logic_error("forward_tokens_block_by_block: model.input is not tokens");
  if (kv_cache_.cache || g.grad_enabled())
    throw std::logic_error("forward_tokens_block_by_block: a pass without gradients and without a KV cache");
  // Two arenas take turns: block l reads its input from one and computes in the other, after which the
  // first is reset for block l + 1. Each block's output is copied across, so the values (and bits) are
  // those of forward_tokens.
  Graph work[2];
  for (Graph& w : work) w.set_grad_enabled(false);
  Tensor h = with_positions(work[0], embedding_->forward(work[0], ids, batch, seq_len));
  const auto moved = [](Graph& to, const Tensor& x) {
    Tensor y = to.new_tensor(x.shape(), false);
    if (x.is_contiguous()) std::copy_n(x.data(), x.numel(), y.data());
    else y = copied(to, x);
    return y;
  };
  for (size_t l = 0; l < blocks_.size(); ++l) {
    Graph& next = work[(l + 1) % 2];
    next.reset();
    h = blocks_[l]->forward(next, moved(next, h));
  }
  return output(g, moved(g, h));
}

bool Transformer::observing_changes_attention(int64_t seq_len) const {
  for (const auto& b : blocks_)
    if (b->attention().uses_tiled_path(seq_len) || b->attention().uses_fused_path(seq_len)) return true;
  return false;
}

bool Transformer::tiles_attention(int64_t seq_len) const {
  for (const auto& b : blocks_)
    if (b->attention().uses_tiled_path(seq_len)) return true;
  return false;
}

}  // namespace sinklab
