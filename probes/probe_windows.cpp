#include "probes/probe_windows.h"

#include <stdexcept>

#include "data/eval_set.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"

namespace sinklab::probes {

RowKind row_kind_of(const Model& model) {
  const AttentionConfig& a = model.config().model.attention;
  RowKind k;
  k.config = a.normalizer;
  // What the normalizer declares on its registration (an unknown name fails when the model is built).
  const NormalizerRegistration* registration = normalizer_registry().find(a.normalizer.name);
  const NormalizerRowFacts facts = registration ? registration->row_facts : NormalizerRowFacts{};
  k.softmax = facts.softmax_of_scaled_logits && !a.key_bias;  // a key-bias slot adds a column
  if (facts.temperature_option.empty()) return k;
  if (const OptionValue* t = a.normalizer.options.find(facts.temperature_option);
      t && std::holds_alternative<double>(*t))
    k.temperature = std::get<double>(*t);
  return k;
}

ProbeWindows validation_windows(Model& model, const std::string& model_name, int windows, int length) {
  const RunConfig& config = model.config();
  if (config.model.input != InputKind::tokens)
    throw std::invalid_argument(model_name + ": the probes need a model that reads tokens (model.input: tokens)");
  if (length > config.task.seq_len)
    throw std::invalid_argument("--L: " + std::to_string(length) + " is longer than the run's windows (task.seq_len " +
                                std::to_string(config.task.seq_len) + ")");
  const std::unique_ptr<Task> task = make_task(config.task, config.model.residual);
  const EvalSet set(*task, windows, config.task.eval_seed);
  const ConstBatchView all = set.all();
  if (!all.input_ids) throw std::invalid_argument(model_name + ": the run's task gives no token ids");
  ProbeWindows w;
  w.model = &model;
  w.model_name = model_name;
  w.windows = windows;
  w.length = length;
  w.ids.reserve(static_cast<std::size_t>(windows) * length);
  for (int i = 0; i < windows; ++i) {
    const int32_t* window = all.input_ids + static_cast<int64_t>(i) * set.seq_len();
    w.ids.insert(w.ids.end(), window, window + length);
  }
  return w;
}

}  // namespace sinklab::probes
