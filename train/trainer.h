#pragma once
// The training loop of one run: task batches -> model -> the task's loss (models/task_objective.h) ->
// backward -> clip -> optimizer, with stop rules, periodic metrics (including per-head sink statistics
// of the training batch), evaluation on the fixed evaluation set (models/evaluation.h), checkpoints
// and the run directory.
#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "config_loading/run_config.h"
#include "core/graph.h"
#include "core/parameter_store.h"
#include "core/rng.h"
#include "data/eval_set.h"
#include "data/task.h"
#include "layers/transformer.h"
#include "models/evaluation.h"
#include "models/model.h"
#include "models/task_objective.h"
#include "run_files/run_summary.h"
#include "stats/attention_maps.h"
#include "stats/attention_snapshots.h"
#include "stats/sink_statistics.h"
#include "run_files/checkpoint.h"
#include "train/optimizer.h"
#include "train/phase_clock.h"
#include "train/evaluation_pipeline.h"
#include "train/progress_reporter.h"
#include "train/sharded_gradient.h"
#include "stats/extreme_tokens.h"
#include "stats/sink_onset.h"

namespace sinklab {

struct TrainOptions {
  std::filesystem::path run_dir;      // empty: write nothing (tests, benchmarks)
  std::filesystem::path resume_from;  // a checkpoint of this config to continue from
  bool quiet = false;                 // no progress output
  int64_t stop_at_step = -1;          // >= 0: end early after this many steps (tests of resume)
  bool stop_like_a_kill = false;      // with stop_at_step: write nothing more, as if killed (tests)
  // Called with every metrics line after it is written (sinklab.train's on_log). An exception from it
  // stops the run like an interrupt (checkpoint written, no summary; a run that ends at that step
  // finishes first), then run() rethrows it. Empty: nothing is called.
  std::function<void(const MetricsRecord&)> on_log;
  // One rank of a data-parallel run (`train --mpi`, train/shard_exchange.h): this process computes its
  // shards of train.batch_shards; rank 0 alone logs, evaluates and writes (the others get an empty
  // run_dir). Null: one process.
  ShardExchange* exchange = nullptr;
  // When the run's setup began (the train command's start), for summary.json's time_seconds; unset:
  // when run() is called.
  std::optional<std::chrono::steady_clock::time_point> started;
};

// How a run ended, for the command's exit status (docs/reliability.md).
enum class RunOutcome { finished, interrupted, diverged };
RunOutcome outcome_of(const RunSummary& summary);

using EvalResult = SinkEvaluation;  // metrics and heads (models/sink_evaluation.h)

class Trainer {
 public:
  explicit Trainer(const RunConfig& config);
  ~Trainer();

  // Loads a checkpoint of this config (parameters, optimizer moments, step, data RNG); run() then
  // continues from it. Both of the checkpoint's hashes must match (bit-identical resume), with one
  // exception: the final checkpoint of this config's run with train.max_steps = its step (a finished run
  // being extended, `train --resume RUN --set train.max_steps=N`) when the learning-rate schedule does
  // not depend on max_steps, so the extended run is bit-identical to one trained for N steps from the
  // start. Throws CheckpointError naming the file and the problem.
  void resume(const std::filesystem::path& checkpoint);
  // The step resume() continues from (0 for a fresh run).
  int64_t resumed_step() const { return resumed_.step; }
  // The checkpoint hashes of this config's run with train.max_steps = the checkpoint's step, when resume()
  // may extend it (see there).
  std::optional<CheckpointHashes> hashes_of_a_shorter_run(const std::filesystem::path& checkpoint) const;
  RunSummary run(const TrainOptions& options);
  // Loss, max error, sink statistics and (when maps != nullptr) attention maps on the evaluation set.
  EvalResult evaluate(AttentionMapAccumulator* maps);
  // Extreme-token statistics of the current weights (models/extreme_token_evaluation.h).
  ExtremeTokenReport extreme_token_report();
  // One optimization step on a fresh batch; returns the loss before the update. When the batch meets a
  // stop rule the update is not applied (last_stop() says which rule). Exposed for benchmarks.
  double train_step(int64_t step, bool collect_stats);
  StopRule last_stop() const { return last_stop_; }

  ParameterStore& parameters() { return params_; }
  const Transformer& model() const { return *model_; }
  Graph& graph() { return graph_; }

 private:
  struct LoopState;
  class MetricsLog;
  void run_steps(const TrainOptions& options, MetricsLog& log, ProgressReporter& progress, LoopState& state);
  // Writes the step's metrics line and returns it.
  MetricsRecord log_step(int64_t step, bool evaluates, double loss, double steps_per_second, MetricsLog& log,
                         LoopState& state);
  std::string non_finite_after_step(int64_t step, double loss) const;
  // A logged step's sink statistics from a forward-only pass of its batch, one evaluation chunk at a time.
  void observe_batch_in_chunks(int batch);
  RunSummary summary_of(const LoopState& state) const;
  RunSummary final_summary(LoopState& state, AttentionMapAccumulator& maps);
  // Attention snapshots (stats/attention_snapshots.h): a forward-only pass over the evaluation inputs
  // the observers see, labelled `step`; and the file, rewritten before every checkpoint and at the end.
  bool snapshots_on(const TrainOptions& options) const;
  // The final snapshot (the last step's weights) never thins the list: it is one past the schedule.
  void take_snapshot(int64_t step, bool final);
  void write_snapshots(const std::filesystem::path& run_dir) const;
  void reload_snapshots(const std::filesystem::path& run_dir, const std::filesystem::path& checkpoint);
  // train_step with train.batch_shards > 1 or over ranks: each shard its own forward and backward,
  // their gradients summed in shard order (train/sharded_gradient.h).
  double sharded_step(int64_t step, bool collect_stats);
  // The process that logs, evaluates and writes: rank 0 of a data-parallel run, else this one.
  bool primary() const { return !sharded_ || sharded_->primary(); }
  // The one place stop rules are decided, on the step's own batch before its update.
  StopRule stop_rule_met(double error, double loss) const;
  void save(const std::filesystem::path& path, const LoopState& state, uint64_t metrics_lines);
  void replay_onsets(const std::filesystem::path& run_dir);
  std::string stop_text(StopRule stop) const;

  RunConfig config_;
  std::unique_ptr<Task> task_;
  std::unique_ptr<Model> built_model_;  // parameters and network, built by build_model (models/model_loader.h)
  // built_model_'s parameter store and network, under the names the step code uses.
  ParameterStore& params_;
  Transformer* const model_;
  std::unique_ptr<Optimizer> optimizer_;
  Rng data_rng_;
  Graph graph_;
  TaskObjective objective_;
  BatchBuffers batch_;  // one training batch, reused every step
  // The run's evaluation task, set and objective (task.eval_seq_len applied), and how every evaluation
  // reads them: the same pipeline as `eval`, `inspect --eval` and Python's (train/evaluation_pipeline.h).
  EvaluationPipeline evaluation_;
  const Task* const eval_task_;             // evaluation_'s, under the names the snapshot code uses
  const TaskObjective& eval_objective_;
  const EvalSet* const eval_set_;
  std::unique_ptr<SinkStatisticsAccumulator> train_stats_;
  SinkOnsetTracker onset_;  // fed by every logged step; a resume replays the kept metrics lines
  double last_error_ = 0, last_grad_norm_ = 0;
  StopRule last_stop_ = StopRule::none;
  TrainingState resumed_;  // what resume() loaded; step 0 and an empty log for a fresh run
  // Where run()'s time goes (summary.json's time_seconds). Timing is not the trainer's state: const
  // members that write files charge their time too.
  mutable PhaseClock clock_{PhaseClock::Clock::now()};
  std::unique_ptr<SnapshotMapAccumulator> snapshot_maps_;  // only with analysis.snapshot_every > 0
  AttentionSnapshots snapshots_;                           // taken so far (a resumed run: reloaded)
  std::unique_ptr<ShardedGradient> sharded_;  // only with batch shards or ranks
  ShardExchange* exchange_ = nullptr;          // TrainOptions::exchange of the running run()
  bool agreed_interrupt_ = false;              // over ranks: some rank saw a stop signal during the last step
  int64_t snapshot_interval_ = 0;  // steps between snapshots now (snapshot_interval: doubles as they thin)
};

}  // namespace sinklab
