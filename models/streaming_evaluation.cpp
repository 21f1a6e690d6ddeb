#include "models/streaming_evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "data/text_corpus.h"
#include "data/text_lm_task.h"

namespace sinklab {
namespace {

constexpr int32_t kBos = CharVocabulary::kBos;  // both tokenizers give BOS id 0

// Windows per forward pass: about 2^18 / d_model positions (1 MB per activation of the residual stream),
// so the matmuls are large and one pass's arena stays small (on text_lm_char_softmax at W = 63, 2^20
// was no faster and the process took 360 MB instead of 130 MB).
int64_t windows_per_pass(int64_t length, int d_model) {
  const int64_t positions = std::max<int64_t>(length, (int64_t{1} << 18) / std::max(d_model, 1));
  return std::max<int64_t>(1, positions / length);
}

// -log softmax(logits)[target] in double: the loss of one scored position.
double next_token_loss(const float* logits, int classes, int32_t target) {
  const float top = *std::max_element(logits, logits + classes);
  double sum = 0.0;
  for (int k = 0; k < classes; ++k) sum += std::exp(static_cast<double>(logits[k]) - top);
  return std::log(sum) + top - logits[target];
}

const TextLmTask& text_lm(const Task& task) {
  const auto* lm = dynamic_cast<const TextLmTask*>(&task);
  if (!lm)
    throw std::invalid_argument(
        "streaming evaluation needs a text_lm run (a language model on a text); this run's task is " +
        std::string(task.name()));
  return *lm;
}

}  // namespace

std::vector<int32_t> held_out_stream(const Task& task, int64_t tokens, bool bos) {
  const TextLmTask& lm = text_lm(task);
  const std::span<const int32_t> validation = lm.corpus_ids().subspan(lm.train_tokens());
  const int64_t needed = bos ? 1 : 2;  // one prediction at least
  if (tokens < needed)
    throw StreamSettingError(
        "tokens", "a stream of " + std::to_string(tokens) + " token(s) leaves nothing to score: give at least " +
                      std::to_string(needed) + (bos ? " (after BOS)" : " (the run's windows have no BOS)"));
  if (tokens > static_cast<int64_t>(validation.size()))
    throw StreamSettingError("tokens", std::to_string(tokens) +
                                           " tokens is more than the validation part of task.corpus holds (" +
                                           std::to_string(validation.size()) + " tokens)");
  std::vector<int32_t> stream;
  stream.reserve(static_cast<std::size_t>(tokens) + 1);
  if (bos) stream.push_back(kBos);
  stream.insert(stream.end(), validation.begin(), validation.begin() + tokens);
  return stream;
}

int64_t default_stream_tokens(const Task& task, int seq_len) {
  const TextLmTask& lm = text_lm(task);
  return std::min<int64_t>(int64_t{4} * seq_len, static_cast<int64_t>(lm.validation_tokens()));
}

StreamingEvaluator::StreamingEvaluator(const Model& model, std::span<const int32_t> stream, bool bos, int32_t bos_id)
    : model_(model),
      stream_(stream),
      bos_(bos),
      bos_id_(bos_id),
      trained_context_(model.config().task.seq_len - 1),
      classes_(model.shape().output_dim) {
  if (model.config().model.input != InputKind::tokens)
    throw std::invalid_argument("streaming evaluation needs a model that reads tokens (model.input: tokens)");
  if (stream.size() < 2) throw StreamSettingError("tokens", "the stream holds no token to predict");
  if (trained_context_ + 1 > model.shape().max_seq_len)
    throw std::logic_error("streaming evaluation: the model is shorter than its training windows");
}

void StreamingEvaluator::check_window(StreamWindow s) const {
  const std::string w = std::to_string(s.window), k = std::to_string(s.keep_first);
  if (s.keep_first < 0) throw StreamSettingError("keep_first", "the kept tokens K = " + k + " must be >= 0");
  if (s.keep_first >= s.window)
    throw StreamSettingError(
        "keep_first",
        "K = " + k +
            " kept tokens need a window W > K (the cache holds them and at least one recent token), got W = " + w);
  if (model_.config().model.positional == Positional::learned && s.window > trained_context_)
    throw StreamSettingError("window",
                             "window " + w + " is longer than the " + std::to_string(trained_context_) +
                                 " tokens this model was trained to predict from (learned positions, task.seq_len " +
                                 std::to_string(trained_context_ + 1) +
                                 ": training scores positions 0 .. seq_len - 2); use a window of at most " +
                                 std::to_string(trained_context_));
  if (s.window > model_.shape().max_seq_len)
    throw StreamSettingError("window", "window " + w + " is longer than the model's " +
                                           std::to_string(model_.shape().max_seq_len) +
                                           " positions; build the model at that length first");
}

void StreamingEvaluator::score_prefix(int64_t prefix, std::vector<double>& losses) {
  const float* logits = forward(stream_.data(), 1, prefix);
  for (int64_t t = 0; t < prefix; ++t)
    losses[static_cast<std::size_t>(t)] =
        next_token_loss(logits + t * classes_, classes_, stream_[static_cast<std::size_t>(t + 1)]);
}

const float* StreamingEvaluator::forward(const int32_t* ids, int64_t windows, int64_t length) {
  graph_.reset();
  const Tensor out = model_.transformer().forward_tokens(graph_, ids, windows, length);  // [windows, length, classes]
  if (!out.is_contiguous()) throw std::logic_error("streaming evaluation: the model output is not contiguous");
  return out.data();
}

std::vector<double> StreamingEvaluator::windowed_losses(StreamWindow s) {
  check_window(s);
  const int64_t S = scored_positions(), W = s.window, K = s.keep_first;
  std::vector<double> losses(static_cast<std::size_t>(S));
  const NoGradGuard no_grad(graph_);
  // t < W: the window is s_0 .. s_t, so one causal pass over the stream's first min(W, S) tokens scores
  // all of them (position t sees exactly s_0 .. s_t).
  score_prefix(std::min(W, S), losses);
  // t >= W: windows [s_0 .. s_{K-1}, s_{t-W+K+1} .. s_t], `batch` of them per pass, each scored at its last position.
  const int64_t batch = windows_per_pass(W, model_.config().model.d_model);
  ids_.resize(static_cast<std::size_t>(batch * W));
  for (int64_t first = W; first < S; first += batch) {
    const int64_t n = std::min(batch, S - first);
    for (int64_t b = 0; b < n; ++b) {  // ids_ [n, W]
      int32_t* window = ids_.data() + b * W;
      const int64_t t = first + b;
      std::copy_n(stream_.begin(), K, window);
      std::copy_n(stream_.begin() + (t - W + K + 1), W - K, window + K);
    }
    const float* logits = forward(ids_.data(), n, W);
    for (int64_t b = 0; b < n; ++b) {
      const int64_t t = first + b;
      losses[static_cast<std::size_t>(t)] =
          next_token_loss(logits + (b * W + W - 1) * classes_, classes_, stream_[static_cast<std::size_t>(t + 1)]);
    }
  }
  graph_.reset();
  return losses;
}

std::string StreamingEvaluator::kv_cache_refusal() const {
  const Positional p = model_.config().model.positional;
  if (p == Positional::learned || p == Positional::sinusoidal)
    return std::string("the model's positions are ") + (p == Positional::learned ? "learned" : "sinusoidal") +
           " and added to its inputs: a cache cannot re-assign them after an eviction (StreamingLLM's method needs "
           "RoPE or no positions); use the recomputation method";
  return model_.transformer().kv_cache_refusal();
}

std::vector<double> StreamingEvaluator::cached_losses(StreamWindow s) {
  check_window(s);
  if (const std::string why = kv_cache_refusal(); !why.empty()) throw StreamSettingError("method", "KV cache: " + why);
  const int64_t S = scored_positions(), W = s.window, K = s.keep_first;
  const ModelConfig& m = model_.config().model;
  KvCache cache(m.layers, resolved_kv_heads(m), resolved_head_dim(m), W);
  // The evaluator reads the model; the cache is attached for this call only.
  Transformer& transformer = const_cast<Model&>(model_).transformer();
  struct Detach {
    Transformer& t;
    ~Detach() { t.set_kv_cache(nullptr); }
  } detach{transformer};
  transformer.set_kv_cache(&cache);
  std::vector<double> losses(static_cast<std::size_t>(S));
  const NoGradGuard no_grad(graph_);
  const int64_t prefix = std::min(W, S);
  score_prefix(prefix, losses);  // the prefix fills the cache
  for (int64_t t = prefix; t < S; ++t) {
    cache.evict(K, 1);  // the cache held W: the oldest token after the K kept ones leaves
    const float* logits = forward(stream_.data() + t, 1, 1);
    losses[static_cast<std::size_t>(t)] = next_token_loss(logits, classes_, stream_[static_cast<std::size_t>(t + 1)]);
  }
  graph_.reset();
  return losses;
}

std::vector<double> StreamingEvaluator::dense_losses() {
  const int64_t S = scored_positions(), C = trained_context_;
  std::vector<double> losses(static_cast<std::size_t>(S));
  const NoGradGuard no_grad(graph_);
  const int64_t windows = (S + C - 1) / C, full = S / C;
  const int64_t batch = windows_per_pass(C + 1, model_.config().model.d_model);
  ids_.resize(static_cast<std::size_t>(batch * (C + 1)));
  // Windows [first, first + n) of `length` ids: window j = [BOS or s_{jC}, s_{jC+1} .. s_{jC+length-1}],
  // positions 0 .. length - 2 predict s_{jC+1} .. (t = jC + i).
  const auto pass = [&](int64_t first, int64_t n, int64_t length) {
    for (int64_t b = 0; b < n; ++b) {  // ids_ [n, length]
      int32_t* window = ids_.data() + b * length;
      const int64_t start = (first + b) * C;
      window[0] = bos_ ? bos_id_ : stream_[static_cast<std::size_t>(start)];
      std::copy_n(stream_.begin() + start + 1, length - 1, window + 1);
    }
    const float* logits = forward(ids_.data(), n, length);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i + 1 < length; ++i) {
        const int64_t t = (first + b) * C + i;
        losses[static_cast<std::size_t>(t)] = next_token_loss(logits + (b * length + i) * classes_, classes_,
                                                              ids_[static_cast<std::size_t>(b * length + i + 1)]);
      }
  };
  for (int64_t first = 0; first < full; first += batch) pass(first, std::min(batch, full - first), C + 1);
  if (windows > full) pass(full, 1, S - full * C + 1);  // the last, shorter window
  graph_.reset();
  return losses;
}

double mean_loss(std::span<const double> losses, std::size_t from) {
  if (from >= losses.size()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0.0;
  for (std::size_t i = from; i < losses.size(); ++i) sum += losses[i];
  return sum / static_cast<double>(losses.size() - from);
}

}  // namespace sinklab
