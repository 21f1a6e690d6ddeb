#include "models/extreme_token_evaluation.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/rng.h"
#include "data/text_lm_task.h"

namespace sinklab {
namespace {

// Hands the meter to the model as observer and hooks for one measurement and takes it back. Hooks the
// model already has (an intervention, models/massive_activation_intervention.h) see each activation
// first, so the meter measures what they left.
class ScopedMeter final : public ActivationHooks {
 public:
  ScopedMeter(Transformer& model, ExtremeTokenMeter& meter)
      : model_(model), meter_(meter), previous_(model.hooks()), registration_(model.observers().observe(meter)) {
    model.set_hooks(this);
  }
  ~ScopedMeter() override { model_.set_hooks(previous_); }
  ScopedMeter(const ScopedMeter&) = delete;
  ScopedMeter& operator=(const ScopedMeter&) = delete;

  void on_activation(std::string_view name, const Tensor& value) override {
    if (previous_) previous_->on_activation(name, value);
    meter_.on_activation(name, value);
  }

 private:
  Transformer& model_;
  ExtremeTokenMeter& meter_;
  ActivationHooks* previous_;
  AttentionObservers::Registration registration_;
};

}  // namespace

ExtremeTokenStats measure_extreme_tokens(Graph& g, Transformer& model, const TaskObjective& objective,
                                         const EvalSet& set, int samples, int chunk, double eps, bool key_bias_slot) {
  samples = std::min(samples, set.size());
  if (samples < 1) throw std::invalid_argument("extreme-token statistics need at least one evaluation input");
  ExtremeTokenMeter meter(model.layers(), model.heads(), eps, key_bias_slot);
  {
    const ScopedMeter scoped(model, meter);
    NoGradGuard no_grad(g);
    const int step = evaluation_chunk(objective.shape().seq_len, chunk);
    for (int begin = 0; begin < samples; begin += step) {
      const int count = std::min(step, samples - begin);
      g.reset();
      objective.run(g, model, set.view(begin, count), count);
    }
    g.reset();
  }
  return meter.finish();
}

ExtremeTokenStats measure_extreme_tokens(Graph& g, Transformer& model, std::span<const int32_t> ids, int64_t windows,
                                         int64_t seq_len, int chunk, double eps, bool key_bias_slot) {
  if (windows < 1 || seq_len < 1 || static_cast<int64_t>(ids.size()) != windows * seq_len)
    throw std::invalid_argument("extreme-token statistics: " + std::to_string(ids.size()) + " ids are not " +
                                std::to_string(windows) + " windows of " + std::to_string(seq_len));
  ExtremeTokenMeter meter(model.layers(), model.heads(), eps, key_bias_slot);
  {
    const ScopedMeter scoped(model, meter);
    NoGradGuard no_grad(g);
    const int64_t step = evaluation_chunk(static_cast<int>(seq_len), chunk);
    for (int64_t begin = 0; begin < windows; begin += step) {
      const int64_t count = std::min(step, windows - begin);
      g.reset();
      model.forward_tokens(g, ids.data() + begin * seq_len, count, seq_len);
    }
    g.reset();
  }
  return meter.finish();
}

std::vector<int32_t> gu_protocol_windows(std::span<const int32_t> train_ids, int seq_len, int windows, bool with_bos,
                                         uint64_t seed) {
  const int from_corpus = with_bos ? seq_len - 1 : seq_len;
  if (seq_len < 2 || windows < 1 || static_cast<int64_t>(train_ids.size()) < from_corpus)
    throw std::invalid_argument("Gu's protocol needs windows of " + std::to_string(seq_len) +
                                " tokens from a training part of " + std::to_string(train_ids.size()) + " tokens");
  Rng rng(seed);
  std::vector<int32_t> ids;
  ids.reserve(static_cast<size_t>(windows) * static_cast<size_t>(seq_len));
  const uint64_t starts = train_ids.size() - static_cast<size_t>(from_corpus) + 1;
  for (int w = 0; w < windows; ++w) {
    const size_t start = rng.below(starts);
    if (with_bos) ids.push_back(0);
    ids.insert(ids.end(), train_ids.begin() + static_cast<std::ptrdiff_t>(start),
               train_ids.begin() + static_cast<std::ptrdiff_t>(start + static_cast<size_t>(from_corpus)));
  }
  return ids;
}

int gu_protocol_length(const RunConfig& config, int max_seq_len) {
  const bool length_bound =
      config.model.positional == Positional::learned || config.model.positional == Positional::sinusoidal;
  return length_bound ? std::min(kGuSeqLen, max_seq_len) : kGuSeqLen;
}

ExtremeTokenReport measure_extreme_token_report(Graph& g, Transformer& model, const RunConfig& config, const Task& task,
                                                const TaskObjective& objective, const EvalSet& set, int max_seq_len) {
  const double eps = config.analysis.sink_eps;
  const bool slot = config.model.attention.key_bias;
  const int samples =
      std::max(1, std::min(config.analysis.extreme_token_samples, config.analysis.eval_attention_samples));
  ExtremeTokenReport r{measure_extreme_tokens(g, model, objective, set, samples, 250, eps, slot), std::nullopt,
                       std::nullopt};
  const int windows = config.analysis.gu_windows;
  const auto* text = dynamic_cast<const TextLmTask*>(&task);
  if (text && windows > 0) {
    const int T = gu_protocol_length(config, max_seq_len);
    const std::span<const int32_t> train = text->corpus_ids().first(text->train_tokens());
    for (const bool bos : {true, false}) {
      const std::vector<int32_t> ids = gu_protocol_windows(train, T, windows, bos, kGuSeed);
      (bos ? r.gu_bos : r.gu_no_bos) = measure_extreme_tokens(g, model, ids, windows, T, 250, eps, slot);
    }
  }
  return r;
}

}  // namespace sinklab
