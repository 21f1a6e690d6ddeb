#pragma once
// The training loop of one run: task batches -> model -> MSE -> backward -> clip -> optimizer, with
// stop rules, periodic metrics (including per-head sink statistics of the training batch),
// evaluation on the fixed evaluation set, checkpoints and the run directory.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "configs/run_config.h"
#include "core/graph.h"
#include "core/parameter_store.h"
#include "core/rng.h"
#include "data/eval_set.h"
#include "data/task.h"
#include "layers/transformer.h"
#include "runs/run_summary.h"
#include "stats/attention_maps.h"
#include "stats/sink_statistics.h"
#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "train/progress_reporter.h"

namespace sinklab {

struct TrainOptions {
  std::filesystem::path run_dir;      // empty: write nothing (tests, benchmarks)
  std::filesystem::path resume_from;  // a checkpoint of this config to continue from
  bool quiet = false;                 // no progress output
  int64_t stop_at_step = -1;          // >= 0: end early after this many steps (tests of resume)
  bool stop_like_a_kill = false;      // with stop_at_step: write nothing more, as if killed (tests)
};

// How a run ended, for the command's exit status (docs/reliability.md).
enum class RunOutcome { finished, interrupted, diverged };
RunOutcome outcome_of(const RunSummary& summary);

struct EvalResult {
  double mse = 0, max_abs_error = 0;
  std::vector<HeadSinkStats> heads;
};

class Trainer {
 public:
  explicit Trainer(const RunConfig& config);
  ~Trainer();

  // Loads a checkpoint of this config (parameters, optimizer moments, step, data RNG); run() then
  // continues from it. Throws CheckpointError naming the file and the problem.
  void resume(const std::filesystem::path& checkpoint);
  RunSummary run(const TrainOptions& options);
  // Loss, max error, sink statistics and (when maps != nullptr) attention maps on the evaluation set.
  EvalResult evaluate(AttentionMapAccumulator* maps);
  // One optimization step on a fresh batch; returns the loss before the update. Exposed for benchmarks.
  double train_step(int64_t step, bool collect_stats);

  ParameterStore& parameters() { return params_; }
  const Transformer& model() const { return *model_; }
  Graph& graph() { return graph_; }

 private:
  struct LoopState;
  class MetricsLog;
  void run_steps(const TrainOptions& options, MetricsLog& log, ProgressReporter& progress, LoopState& state);
  void log_step(int64_t step, double loss, double steps_per_second, MetricsLog& log, LoopState& state);
  std::string non_finite_after_step(int64_t step, double loss) const;
  RunSummary summary_of(const LoopState& state) const;
  void save(const std::filesystem::path& path, const LoopState& state, uint64_t metrics_lines);

  RunConfig config_;
  std::unique_ptr<Task> task_;
  ParameterStore params_;
  std::unique_ptr<Transformer> model_;
  std::unique_ptr<Optimizer> optimizer_;
  Rng data_rng_;
  Graph graph_;
  // One training batch, reused every step.
  std::vector<float> inputs_, targets_;
  std::vector<TokenRole> roles_;
  std::vector<int32_t> triggers_;
  std::unique_ptr<EvalSet> eval_set_;
  std::unique_ptr<SinkStatisticsAccumulator> train_stats_;
  double last_max_abs_error_ = 0, last_grad_norm_ = 0;
  TrainingState resumed_;  // what resume() loaded; step 0 and an empty log for a fresh run
};

}  // namespace sinklab
