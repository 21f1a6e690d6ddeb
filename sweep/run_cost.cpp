#include "sweep/run_cost.h"

#include <algorithm>
#include <numeric>

#include "sweep/sweep_validation.h"

namespace sinklab::sweep {

double step_cost(const RunConfig& config) {
  const ModelConfig& m = config.model;
  const double d = m.d_model;
  const double attention_width = static_cast<double>(m.heads) * resolved_head_dim(m);
  const double t = config.task.seq_len;
  const double per_position_and_layer = 4.0 * d * attention_width  // W_Q, W_K, W_V, W_O
                                        + 2.0 * d * m.mlp_hidden     // the MLP's two matrices
                                        + 2.0 * t * attention_width;  // scores and weighted values
  const double embedding_and_logits = 2.0 * d * m.vocab_size;
  return config.train.batch_size * t * (m.layers * per_position_and_layer + embedding_and_logits);
}

double expected_run_cost(const RunConfig& config) { return step_cost(config) * config.train.max_steps; }

std::vector<double> expected_run_costs(const std::vector<PlannedRun>& runs, const ConfigVocabulary& vocab) {
  std::vector<double> costs;
  costs.reserve(runs.size());
  for (const auto& run : runs)
    costs.push_back(expected_run_cost(load_run_config(run.config, override_strings(run), vocab)));
  return costs;
}

std::vector<std::size_t> longest_first(const std::vector<double>& costs) {
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  return order;
}

}  // namespace sinklab::sweep
