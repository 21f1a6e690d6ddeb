#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "config_loading/config_writer.h"
#include "core/io/file_read.h"  // FileReadError
#include "core/io/file_write.h"
#include "core/kernels/finite_check.h"
#include "core/thread_count.h"
#include "data/eval_set.h"
#include "data/task_registry.h"
#include "models/extreme_token_evaluation.h"
#include "models/model_loader.h"
#include "run_files/attention_map_files.h"
#include "run_files/attention_snapshot_file.h"
#include "stats/sink_observer.h"
#include "run_files/checkpoint.h"
#include "models/evaluation_summary.h"
#include "train/interrupt.h"
#include "train/lr_schedule.h"
#include "train/progress_reporter.h"
#include "train/step_cadence.h"
#include "run_files/run_provenance.h"

namespace sinklab {
namespace {

constexpr int kEvalChunk = 250;  // evaluation inputs per forward pass

// "NaN", "inf" or "-inf": std::to_string would print "-nan" for some NaNs.
std::string non_finite_text(double v) { return std::isnan(v) ? "NaN" : (v > 0 ? "inf" : "-inf"); }

}  // namespace

Trainer::Trainer(const RunConfig& config)
    : config_(config),
      task_(make_task(config.task, config.model.residual)),
      built_model_(build_model(config, model_shape_of(config))),
      params_(built_model_->parameters()),
      model_(&built_model_->transformer()),
      data_rng_(seed_stream(config.seed, kDataStream)),
      objective_(task_->shape()),
      batch_(task_->shape(), config.train.batch_size),
      evaluation_(config),
      eval_task_(&evaluation_.task()),
      eval_objective_(evaluation_.objective()),
      eval_set_(&evaluation_.set()) {
  // Results are bit-identical for a given thread count; the count is part of the run's config.
  // (Initialization above draws from one Rng on one thread, so setting it after is the same.)
  set_thread_count(config.threads);
  optimizer_ = make_optimizer(config.optimizer);

  train_stats_ = std::make_unique<SinkStatisticsAccumulator>(config.model.layers, config.model.heads, task_->seq_len(),
                                                             config.analysis.sink_eps);
  if (config.analysis.snapshot_every > 0) {
    const int T = eval_task_->seq_len();
    snapshot_maps_ = std::make_unique<SnapshotMapAccumulator>(config.model.layers, config.model.heads, T);
    snapshots_.layers = config.model.layers;
    snapshots_.heads = config.model.heads;
    snapshots_.seq_len = T;
    snapshots_.positions = snapshot_maps_->positions();
    const ConstBatchView first = eval_set_->view(0, 1);  // the example input
    snapshots_.roles.assign(first.roles, first.roles + T);
    if (eval_task_->shape().input == TaskInput::tokens) {
      snapshots_.tokens.assign(first.input_ids, first.input_ids + T);
      for (const int32_t id : snapshots_.tokens) snapshots_.token_labels.push_back(eval_task_->token_label(id));
      if (std::all_of(snapshots_.token_labels.begin(), snapshots_.token_labels.end(),
                      [](const std::string& l) { return l.empty(); }))
        snapshots_.token_labels.clear();  // a task without text for its ids: the page shows the ids
    }
    snapshot_interval_ = config.analysis.snapshot_every;
  }
  if (config.train.batch_shards > 1)
    sharded_ = std::make_unique<ShardedGradient>(params_.size(), config.train.batch_shards, nullptr);
}

Trainer::~Trainer() = default;

StopRule Trainer::stop_rule_met(double error, double loss) const {
  const TrainConfig& tc = config_.train;
  if (tc.stop_max_abs_error > 0 && error < tc.stop_max_abs_error) return StopRule::max_abs_error;
  if (tc.stop_loss > 0 && loss < tc.stop_loss) return StopRule::loss;
  return StopRule::none;
}

double Trainer::train_step(int64_t step, bool collect_stats) {
  if (sharded_) return sharded_step(step, collect_stats);
  const int B = config_.train.batch_size;
  task_->sample(B, data_rng_, Split::train, batch_.view());
  graph_.reset();
  params_.zero_grads();

  // An unobserved step fuses (short rows) or tiles (long rows, layers/tiled_attention.h) its attention;
  // an observed one materializes it, which agrees only to rounding (and at long rows would hold
  // [H, B, T, T] weights, scores and their gradients: GBs at T = 1024). So a logged step reads its
  // statistics from a forward-only pass of the same batch, then trains on it unobserved: how often a
  // run logs never changes its weights. Only a model whose attention is materialized anyway (key bias,
  // ablation) is observed inside the step.
  const bool observe_in_step = collect_stats && !model_->observing_changes_attention(task_->seq_len());
  if (collect_stats && !observe_in_step) observe_batch_in_chunks(B);
  const MatmulPrecisionScope precision(graph_, config_.train.precision);  // the step's products only
  SinkObserver observer(train_stats_.get(), nullptr);
  std::optional<AttentionObservers::Registration> registration;
  if (observe_in_step) {
    observer.begin_batch(batch_.roles.data(), B);
    train_stats_->reset();
    registration.emplace(model_->observers().observe(observer));
  }
  const BatchScore score = objective_.run(graph_, *model_, batch_.view(0, B), B);
  registration.reset();
  last_error_ = score.error();
  const double loss_value = score.loss.data()[0];
  last_stop_ = stop_rule_met(last_error_, loss_value);
  if (last_stop_ != StopRule::none) return loss_value;  // the step's own batch meets a rule: no update

  graph_.backward(score.loss);
  last_grad_norm_ = config_.optimizer.clip_grad_norm > 0 ? clip_gradient_norm(params_, config_.optimizer.clip_grad_norm)
                                                         : gradient_norm(params_);
  optimizer_->step(params_, static_cast<float>(learning_rate(config_.optimizer, step, config_.train.max_steps)));
  return loss_value;
}

double Trainer::sharded_step(int64_t step, bool collect_stats) {
  const int B = config_.train.batch_size;
  const int n = B / config_.train.batch_shards;  // samples per shard (the loader checks it divides)
  // Every rank draws the whole batch: one data stream, whatever the number of ranks.
  task_->sample(B, data_rng_, Split::train, batch_.view());
  if (collect_stats) observe_batch_in_chunks(B);  // only the primary logs
  const MatmulPrecisionScope precision(graph_, config_.train.precision);  // the step's products only
  for (int j = 0; j < sharded_->local_shards(); ++j) {
    const int begin = (sharded_->first_shard() + j) * n;
    graph_.reset();
    params_.zero_grads();
    const BatchScore score = objective_.run(graph_, *model_, batch_.view(begin, n), n);
    const ShardScore shard{score.loss.data()[0], score.max_abs_error, static_cast<double>(score.scored),
                           static_cast<double>(score.correct), 0.0};
    graph_.backward(score.loss);
    sharded_->add_shard(j, params_.grads(), shard);
  }
  graph_.reset();
  const StepTotals totals = sharded_->finish(params_.grads(), exchange_ && interrupt_requested());
  agreed_interrupt_ = totals.sum.interrupt > 0;
  BatchScore batch;
  batch.max_abs_error = totals.sum.max_abs_error;
  batch.scored = static_cast<int64_t>(totals.sum.scored);
  batch.correct = static_cast<int64_t>(totals.sum.correct);
  last_error_ = batch.error();
  last_stop_ = stop_rule_met(last_error_, totals.loss);
  if (last_stop_ != StopRule::none) return totals.loss;  // the batch meets a rule: no update
  last_grad_norm_ = config_.optimizer.clip_grad_norm > 0 ? clip_gradient_norm(params_, config_.optimizer.clip_grad_norm)
                                                         : gradient_norm(params_);
  optimizer_->step(params_, static_cast<float>(learning_rate(config_.optimizer, step, config_.train.max_steps)));
  return totals.loss;
}

void Trainer::observe_batch_in_chunks(int batch) {
  train_stats_->reset();
  SinkObserver observer(train_stats_.get(), nullptr);
  const AttentionObservers::Registration registration = model_->observers().observe(observer);
  const NoGradGuard no_grad(graph_);
  const int chunk = evaluation_chunk(task_->seq_len());
  for (int begin = 0; begin < batch; begin += chunk) {
    const int count = std::min(chunk, batch - begin);
    const ConstBatchView v = batch_.view(begin, count);
    observer.begin_batch(v.roles, count);
    graph_.reset();
    objective_.run(graph_, *model_, v, count);
  }
  graph_.reset();
}

bool Trainer::snapshots_on(const TrainOptions& options) const { return snapshot_maps_ && !options.run_dir.empty(); }

// Like observe_batch_in_chunks, on the evaluation path: the model only reads its weights here.
void Trainer::take_snapshot(int64_t step, bool final) {
  const auto timed = clock_.in(&RunTimes::analysis);
  snapshot_maps_->reset();
  SnapshotObserver observer(*snapshot_maps_);
  const AttentionObservers::Registration registration = model_->observers().observe(observer);
  const NoGradGuard no_grad(graph_);
  const int samples = config_.analysis.snapshot_samples;
  const int chunk = evaluation_chunk(eval_task_->seq_len(), kEvalChunk);
  for (int begin = 0; begin < samples; begin += chunk) {
    const int count = std::min(chunk, samples - begin);
    graph_.reset();
    eval_objective_.run(graph_, *model_, eval_set_->view(begin, count), count);
  }
  graph_.reset();
  snapshots_.append(step, *snapshot_maps_);
  const int limit = config_.analysis.snapshot_limit;
  if (!final && limit > 0 && static_cast<int64_t>(snapshots_.steps.size()) >= limit) {
    snapshot_interval_ *= 2;
    snapshots_.keep_multiples_of(snapshot_interval_);
  }
}

void Trainer::write_snapshots(const std::filesystem::path& run_dir) const {
  const auto timed = clock_.in(&RunTimes::writing);
  write_attention_snapshots(run_dir / kAttentionSnapshotsFile, snapshots_);
}

namespace {

// "0, 16, 32" or, for long lists, "0, 16, 32 ... 768, 784 (50 steps)".
std::string steps_text(const std::vector<int64_t>& steps) {
  if (steps.empty()) return "none";
  const auto join = [&](size_t from, size_t to) {
    std::string text;
    for (size_t i = from; i < to; ++i) text += (i > from ? ", " : "") + std::to_string(steps[i]);
    return text;
  };
  const size_t n = steps.size();
  if (n <= 6) return join(0, n);
  return join(0, 3) + " ... " + join(n - 2, n) + " (" + std::to_string(n) + " steps)";
}

}  // namespace

// A resumed run continues the snapshots its checkpoint recorded (SnapshotRecord), and only those: the
// file must hold them, byte for byte. It may be ahead of the checkpoint (written just before a kill
// prevented the checkpoint): snapshots of later steps are dropped and taken again, and a thinning the
// run would have made by its next checkpoint anyway is accepted. Anything else (missing, unreadable,
// other steps or other maps) is refused: its snapshots could not be taken again.
void Trainer::reload_snapshots(const std::filesystem::path& run_dir, const std::filesystem::path& checkpoint) {
  const AnalysisConfig& a = config_.analysis;
  const int64_t done = resumed_.step;
  snapshots_.keep_before(0);
  snapshot_interval_ = snapshot_interval(a.snapshot_every, a.snapshot_limit, done);
  const std::filesystem::path path = run_dir / kAttentionSnapshotsFile;
  std::error_code ec;
  const bool exists = std::filesystem::exists(std::filesystem::symlink_status(path, ec));
  if (done == 0) {  // no step was taken: any file there is no snapshot of this run's
    if (exists) std::filesystem::remove(path, ec);  // what cannot be removed is refused when it is written
    return;
  }
  const std::string file = "attention snapshots " + path.string() + ": ";
  const std::string at = "the checkpoint " + checkpoint.string() + " (step " + std::to_string(done) + ")";
  const SnapshotRecord& record = resumed_.snapshots;
  if (!record.recorded)
    throw AttentionSnapshotFileError(file + at + " was written by an older sinklab, which did not record its " +
                                     "snapshots, so this file cannot be checked against it; start the run over " +
                                     "with --force");
  if (record.interval != snapshot_interval_ || record.hashes.empty())
    throw CheckpointError("checkpoint " + checkpoint.string() + ": training state: snapshot interval " +
                          std::to_string(record.interval) + " at step " + std::to_string(done) +
                          ", the run's schedule gives " + std::to_string(snapshot_interval_));
  std::vector<int64_t> expected;
  for (int64_t s = 0; s < done; s += snapshot_interval_) expected.push_back(s);
  const std::string needs = "; a resume needs the snapshots of steps " + steps_text(expected) + " that " + at +
                            " recorded (restore the file, or start the run over with --force)";
  if (!exists) throw AttentionSnapshotFileError(file + "missing" + needs);
  AttentionSnapshots kept;
  try {
    const int64_t heads = int64_t{config_.model.layers} * config_.model.heads;
    kept = read_attention_snapshots(path, snapshot_file_bound(heads, config_.train.max_steps));
  } catch (const AttentionSnapshotFileError& e) {
    throw AttentionSnapshotFileError(e.what() + needs);
  }
  if (kept.layers != snapshots_.layers || kept.heads != snapshots_.heads || kept.seq_len != snapshots_.seq_len ||
      kept.roles != snapshots_.roles || kept.tokens != snapshots_.tokens ||
      kept.token_labels != snapshots_.token_labels)
    throw AttentionSnapshotFileError(file + "written for another model or evaluation set than this run's (" +
                                     std::to_string(kept.layers) + " layers x " + std::to_string(kept.heads) +
                                     " heads at T " + std::to_string(kept.seq_len) + ")" + needs);
  const std::vector<int64_t> in_file = kept.steps;
  kept.keep_before(done);
  // The file's interval may have grown past the checkpoint's by the next point the file is written.
  const int64_t every = config_.train.checkpoint_every;
  const int64_t last = config_.train.max_steps;
  const int64_t next_write = every > 0 ? std::min<int64_t>(last, (done / every + 1) * every) : last;
  const int64_t widest = snapshot_interval(a.snapshot_every, a.snapshot_limit, std::max(done, next_write));
  int64_t matched = 0;
  for (size_t k = 0; k < record.hashes.size() && (snapshot_interval_ << k) <= widest && !matched; ++k)
    if (attention_snapshots_hash(kept, done, snapshot_interval_ << k) == record.hashes[k])
      matched = snapshot_interval_ << k;
  if (!matched) {
    std::vector<int64_t> before;  // the scheduled ones (not a final snapshot the file may hold too)
    for (const int64_t s : kept.steps)
      if (s % snapshot_interval_ == 0) before.push_back(s);
    if (before != expected)
      throw AttentionSnapshotFileError(file + "holds snapshots of steps " + steps_text(before) + " before step " +
                                       std::to_string(done) + needs);
    throw AttentionSnapshotFileError(file + "its maps differ from the ones " + at +
                                     " recorded (the file was changed, or comes from another run such as another "
                                     "seed's)" + needs);
  }
  kept.keep_multiples_of(matched);
  snapshot_interval_ = matched;
  snapshots_ = std::move(kept);
  // The file now says what the checkpoint says: a later kill leaves nothing that is not this run's state.
  if (snapshots_.steps != in_file) write_snapshots(run_dir);
}

EvalResult Trainer::evaluate(AttentionMapAccumulator* maps) {
  const auto timed = clock_.in(&RunTimes::evaluations);
  EvaluationRequest request;
  request.maps = maps;
  return evaluation_.evaluate(graph_, *built_model_, request);
}

// Evaluation steps only (never a training step): extreme-token statistics on the evaluation inputs and,
// for text_lm, on Gu et al.'s windows. Reads the weights, changes nothing (no RNG draw, no parameter).
ExtremeTokenReport Trainer::extreme_token_report() {
  return evaluation_.extreme_tokens(graph_, *built_model_);
}

// What the step loop carries between steps and hands to the summary.
struct Trainer::LoopState {
  int64_t step = 0;  // steps done
  StopRule stop = StopRule::none;
  double loss = 0;         // the last step's training loss
  std::string non_finite;  // what went non-finite and when; non-empty = diverged
  bool interrupted = false;
  std::exception_ptr on_log_error;  // what TrainOptions::on_log threw: stops the run, rethrown by run()
  ProgressEvaluation last_eval;  // for the progress line; not checkpointed (a resumed run shows its next one)
};

// metrics.jsonl, or nothing when the run writes no folder. Checkpoints count its lines rather than
// bytes: the lines carry wall-clock steps/s, so only the count is the same in every run.
class Trainer::MetricsLog {
 public:
  MetricsLog(const std::filesystem::path& run_dir, uint64_t keep_lines) : lines_(keep_lines) {
    if (run_dir.empty()) return;
    const std::filesystem::path path = run_dir / "metrics.jsonl";
    file_ = std::make_unique<AppendFile>(path, keep_lines == 0 ? 0 : bytes_of_first_lines(path, keep_lines));
  }
  void write(const MetricsRecord& r, PhaseClock& clock) {
    if (!file_) return;
    const auto timed = clock.in(&RunTimes::writing);
    std::ostringstream line;
    write_metrics_line(line, r);
    file_->append(line.str());
    ++lines_;
  }
  // Durable before a checkpoint records the count.
  uint64_t sync() {
    if (file_) file_->sync();
    return lines_;
  }

 private:
  // Byte length of the first `lines` lines, read in chunks (a log can be large).
  static uint64_t bytes_of_first_lines(const std::filesystem::path& path, uint64_t lines) {
    const ReadableFile in(path, "metrics log", ReadableFile::kNoSizeLimit);  // a FIFO or device: refused, not read
    std::vector<char> chunk(1 << 20);
    uint64_t seen = 0;
    for (uint64_t offset = 0; offset < in.size(); offset += chunk.size()) {
      const auto n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), in.size() - offset));
      in.read_into(offset, n, chunk.data());
      for (size_t i = 0; i < n; ++i)
        if (chunk[i] == '\n' && ++seen == lines) return offset + i + 1;
    }
    throw FileReadError("metrics log " + path.string() + ": has fewer than the " + std::to_string(lines) +
                        " lines its checkpoint recorded (was it truncated or replaced?)");
  }
  std::unique_ptr<AppendFile> file_;
  uint64_t lines_;
};

RunOutcome outcome_of(const RunSummary& summary) {
  if (summary.stop_reason == "interrupted") return RunOutcome::interrupted;
  return summary.diverged() ? RunOutcome::diverged : RunOutcome::finished;
}

void Trainer::save(const std::filesystem::path& path, const LoopState& state, uint64_t metrics_lines) {
  const auto timed = clock_.in(&RunTimes::writing);
  TrainingState saved{state.step, optimizer_->steps(), data_rng_.state(), metrics_lines, state.stop, state.loss, {}};
  // What attention_snapshots.npz holds now (it is always written before the checkpoint): a resume checks it.
  if (snapshot_maps_) {
    const AnalysisConfig& a = config_.analysis;
    saved.snapshots = record_attention_snapshots(snapshots_, state.step,
                                                 snapshot_interval(a.snapshot_every, a.snapshot_limit, state.step));
  }
  save_checkpoint(path, built_model_->checkpoint_hashes(), params_, saved);
}

// The sink onsets start over, or, for a resumed run, continue from the metrics lines its checkpoint
// kept. Replaying the log rather than keeping the onsets in the checkpoint keeps the checkpoint
// format, resumes checkpoints written before onsets existed, and is exact: every number is written
// with enough digits to read back as the same double, and the log after a resume holds exactly the
// lines of an uninterrupted run.
void Trainer::replay_onsets(const std::filesystem::path& run_dir) {
  const size_t heads = static_cast<size_t>(config_.model.layers) * static_cast<size_t>(config_.model.heads);
  onset_ = SinkOnsetTracker(heads);
  if (resumed_.metrics_lines == 0) return;
  if (run_dir.empty()) {  // no log to replay (tests, benchmarks): unknown, not a wrong step
    onset_.mark_unknown();
    return;
  }
  const std::filesystem::path path = run_dir / "metrics.jsonl";
  std::vector<MetricsRecord> kept = read_metrics(path, resumed_.metrics_lines);
  // A run extended past its train.max_steps (resume()) logged its old last step only for being the last:
  // the line goes, as a run trained for the new max_steps from the start has none there.
  const MetricsRecord* last = kept.empty() ? nullptr : &kept.back();
  if (last && resumed_.stop == StopRule::none && last->step == resumed_.step - 1 &&
      !cadence_at(config_.train, last->step).log) {
    kept.pop_back();
    --resumed_.metrics_lines;
  }
  for (const MetricsRecord& r : kept) {
    if (r.heads.size() != heads)
      throw RunFileError(path.string() + ": step " + std::to_string(r.step) + " logs " +
                         std::to_string(r.heads.size()) + " heads, the run has " + std::to_string(heads));
    onset_.observe(r.step, r.heads);
  }
}

// The hashes of the run this config extends, when `checkpoint` can be the final checkpoint of this config
// with train.max_steps = its step (stopped there by max_steps, not by a rule) and the schedule allows it.
std::optional<CheckpointHashes> Trainer::hashes_of_a_shorter_run(const std::filesystem::path& checkpoint) const {
  if (schedule_depends_on_max_steps(config_.optimizer)) return std::nullopt;
  TrainingState peek;
  try {
    peek = read_training_state(checkpoint);
  } catch (const CheckpointError&) {
    return std::nullopt;  // the first load's message says what is wrong with the file
  }
  if (peek.stop != StopRule::none || peek.step < 1 || peek.step >= config_.train.max_steps) return std::nullopt;
  RunConfig shorter = config_;
  shorter.train.max_steps = static_cast<int>(peek.step);
  return CheckpointHashes{built_model_->checkpoint_hashes().model, config_hash(shorter)};
}

void Trainer::resume(const std::filesystem::path& checkpoint) {
  try {
    resumed_ = load_checkpoint(checkpoint, built_model_->checkpoint_hashes(), params_);
  } catch (const CheckpointError&) {
    const std::exception_ptr first = std::current_exception();  // its message is the one to show
    const std::optional<CheckpointHashes> shorter = hashes_of_a_shorter_run(checkpoint);
    if (!shorter) throw;
    try {  // parameters are written only once every check passed, so the first attempt changed nothing
      resumed_ = load_checkpoint(checkpoint, *shorter, params_);
    } catch (const CheckpointError&) {
      std::rethrow_exception(first);
    }
  }
  if (resumed_.step > config_.train.max_steps)  // the config hash matched, so max_steps is the writer's
    throw CheckpointError("checkpoint " + checkpoint.string() + ": training state: step " +
                          std::to_string(resumed_.step) + " is beyond train.max_steps " +
                          std::to_string(config_.train.max_steps));
  optimizer_->set_steps(resumed_.optimizer_steps);
  data_rng_.set_state(resumed_.rng);
}

// Empty when the step left everything finite; otherwise what went non-finite first. Strings are only
// built on the way out: a healthy step allocates nothing here.
std::string Trainer::non_finite_after_step(int64_t step, double loss) const {
  const auto at = [step] { return " at step " + std::to_string(step); };
  if (!std::isfinite(loss)) return "training loss is " + non_finite_text(loss) + at();
  if (!std::isfinite(last_grad_norm_)) return "gradient norm is " + non_finite_text(last_grad_norm_) + at();
  const auto values = params_.values();
  const int64_t bad = kernels::count_non_finite(values.data(), static_cast<int64_t>(values.size()));
  if (bad > 0)
    return std::to_string(bad) + " of " + std::to_string(values.size()) +
           " parameters are non-finite after the update" + at();
  return {};
}

MetricsRecord Trainer::log_step(int64_t step, bool evaluates, double loss, double steps_per_second, MetricsLog& log,
                                LoopState& state) {
  MetricsRecord r;
  r.step = step;
  r.loss = loss;
  const bool tokens = objective_.shape().loss == TaskLoss::cross_entropy;
  // A token task's step error is the share of wrong tokens: logged as accuracy, not as max |pred - y|.
  r.max_abs_error = tokens ? std::numeric_limits<double>::quiet_NaN() : last_error_;
  if (tokens) r.accuracy = 1.0 - last_error_;
  r.lr = learning_rate(config_.optimizer, step, config_.train.max_steps);
  r.grad_norm = last_grad_norm_;
  r.steps_per_second = steps_per_second;
  r.heads = train_stats_->finish();
  if (std::isfinite(loss)) {
    onset_.observe(step, r.heads);
  } else {
    r.heads.clear();  // statistics of non-finite attention are not the run's numbers (entropy 0, sink score 0)
  }
  if (evaluates) {
    const EvalMetrics e = evaluate(nullptr).metrics;
    r.eval_mse = e.mse;
    r.eval_max_abs_error = e.max_abs_error;
    if (tokens) {
      r.eval_loss = e.loss;
      r.eval_accuracy = e.accuracy;
    }
    state.last_eval = {step, tokens ? e.loss : e.mse, tokens ? 1.0 - e.accuracy : e.max_abs_error};
    const double checked = objective_.shape().loss == TaskLoss::mse ? e.mse : e.loss;
    if (state.non_finite.empty() && !std::isfinite(checked))
      state.non_finite = "evaluation error is " + non_finite_text(checked) + " at step " + std::to_string(step);
    if (std::isfinite(checked)) {
      const auto timed = clock_.in(&RunTimes::analysis);
      r.extreme_tokens = extreme_token_report();
    }
  }
  log.write(r, clock_);
  return r;
}

void Trainer::run_steps(const TrainOptions& options, MetricsLog& log, ProgressReporter& progress, LoopState& state) {
  using Clock = std::chrono::steady_clock;
  const auto timed = clock_.in(&RunTimes::steps);
  const TrainConfig& tc = config_.train;
  const bool writes = !options.run_dir.empty();
  auto window_start = Clock::now(), last_checkpoint = Clock::now();
  int64_t window_steps = 0;
  double steps_per_second = 0;
  const int64_t first_step = state.step;  // its window holds the warm-up (first allocations)
  for (; state.stop == StopRule::none && state.step < tc.max_steps; ++state.step) {
    const int64_t step = state.step;
    // Ranks stop at the same step: each says at the end of a step whether it saw a signal.
    const bool signalled = options.exchange ? agreed_interrupt_ : interrupt_requested();
    if ((options.stop_at_step >= 0 && step >= options.stop_at_step) || signalled || state.on_log_error) {
      state.interrupted = true;
      return;
    }
    const StepCadence duties = cadence_at(tc, step);
    const bool log_now = duties.log && primary();
    state.loss = train_step(step, log_now);
    ++window_steps;
    state.stop = last_stop_;
    state.non_finite = non_finite_after_step(step, state.loss);
    // The step that met a stop rule ends the run: it gets a line, so the curves end where the run does.
    // Its update was not applied, so a forward pass of its batch now sees what the step saw.
    const bool log_stop = !log_now && state.stop != StopRule::none && primary();
    if (log_stop) observe_batch_in_chunks(tc.batch_size);
    if (log_now || state.stop != StopRule::none) {
      const double secs = std::chrono::duration<double>(Clock::now() - window_start).count();
      if (secs > 0 && (window_steps > 1 || step > first_step))
        steps_per_second = static_cast<double>(window_steps) / secs;
      window_start = Clock::now();
      window_steps = 0;
    }
    if (log_now || log_stop) {
      const MetricsRecord record = log_step(step, duties.evaluate, state.loss, steps_per_second, log, state);
      progress.update({.step = step,
                       .max_steps = tc.max_steps,
                       .loss = state.loss,
                       .max_abs_error = last_error_,
                       .steps_per_second = steps_per_second,
                       .token_error = objective_.shape().loss == TaskLoss::cross_entropy,
                       .evaluation = state.last_eval});
      if (options.on_log) {
        try {
          options.on_log(record);
        } catch (...) {
          state.on_log_error = std::current_exception();
        }
      }
    }
    if (!state.non_finite.empty()) return;
    if (snapshots_on(options) && step % snapshot_interval_ == 0) take_snapshot(step, false);
    // A met stop rule ends the run at this step (its update was not applied: see stop_rule_met).
    if (state.stop != StopRule::none) return;
    const bool by_steps = duties.checkpoint;
    const bool by_time = tc.checkpoint_seconds > 0 &&
                         std::chrono::duration<double>(Clock::now() - last_checkpoint).count() >= tc.checkpoint_seconds;
    if (writes && (by_steps || by_time)) {
      if (snapshots_on(options))
        write_snapshots(options.run_dir);  // first: the checkpoint's step bounds what a resume keeps
      LoopState done = state;
      done.step = step + 1;
      save(options.run_dir / "checkpoint.bin", done, log.sync());
      last_checkpoint = Clock::now();
    }
  }
}

// How the run ended, for the user: the stop rule with the quantity it compared (on a token task
// train.stop_max_abs_error compares the token error rate, not an absolute error).
std::string Trainer::stop_text(StopRule stop) const {
  switch (stop) {
    case StopRule::none: return "max_steps";
    case StopRule::loss: return "training loss below train.stop_loss";
    case StopRule::max_abs_error:
      return objective_.shape().loss == TaskLoss::cross_entropy ? "token error rate below train.stop_max_abs_error"
                                                                : "max |pred - y| below train.stop_max_abs_error";
  }
  return "";
}

RunSummary Trainer::summary_of(const LoopState& state) const {
  RunSummary s = evaluation_.run_summary();  // the evaluation's length and trigger
  s.steps = state.step;
  s.git_revision = git_revision();
  s.train_loss = state.loss;
  switch (state.stop) {
    case StopRule::none: s.stop_reason = "max_steps"; break;
    case StopRule::max_abs_error: s.stop_reason = "max_abs_error"; break;
    case StopRule::loss: s.stop_reason = "loss"; break;
  }
  s.reached_stop_rule = state.stop != StopRule::none;
  if (!state.non_finite.empty()) {
    // Numbers the run did not compute are null, never 0.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.stop_reason = RunSummary::kStopNonFinite;
    s.non_finite = state.non_finite;
    s.reached_stop_rule = false;
    s.train_loss = s.eval_mse = s.eval_max_abs_error = s.sink_rate = nan;
  }
  return s;
}

// The final evaluation (attention maps included) of a run that was not interrupted, folded into its
// summary; a non-finite evaluation makes the run diverged.
RunSummary Trainer::final_summary(LoopState& state, AttentionMapAccumulator& maps) {
  EvalResult eval;
  if (state.non_finite.empty()) {
    eval = evaluate(&maps);
    const bool mse = objective_.shape().loss == TaskLoss::mse;
    const double first = mse ? eval.metrics.mse : eval.metrics.loss, second = mse ? eval.metrics.max_abs_error : first;
    if (!std::isfinite(first) || !std::isfinite(second))
      state.non_finite = "final evaluation error is " + non_finite_text(std::isfinite(first) ? second : first) +
                         " after step " + std::to_string(state.step);
  }
  const auto timed = clock_.in(&RunTimes::analysis);
  RunSummary s = summary_of(state);
  if (!s.diverged()) {
    evaluation_.record_final_evaluation(s, std::move(eval), graph_, *built_model_);
    onset_.fill(s.heads);
  }
  return s;
}

RunSummary Trainer::run(const TrainOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  clock_ = PhaseClock(options.started.value_or(started));
  const bool writes = !options.run_dir.empty();
  const std::filesystem::path checkpoint = options.run_dir / "checkpoint.bin";
  if (options.exchange) {
    sharded_ = std::make_unique<ShardedGradient>(params_.size(), config_.train.batch_shards, options.exchange);
    exchange_ = options.exchange;
    agreed_interrupt_ = false;
    if (!primary() && writes) throw std::logic_error("Trainer::run: only rank 0 writes the run folder");
  }
  if (!options.resume_from.empty()) resume(options.resume_from);
  LoopState state;
  state.step = resumed_.step;
  state.stop = resumed_.stop;
  state.loss = resumed_.last_loss;
  // Checked before the log is cut back: a refused snapshot file leaves the folder as it was.
  if (snapshots_on(options)) reload_snapshots(options.run_dir, options.resume_from);
  replay_onsets(options.run_dir);  // first: it may drop the last step of a run being extended
  // A resumed run cuts the log back to its checkpoint, so no step is logged twice or lost.
  MetricsLog log(options.run_dir, resumed_.metrics_lines);
  // From here on a killed run always has a checkpoint to resume from.
  if (writes && options.resume_from.empty()) save(checkpoint, state, 0);

  ProgressReporter progress(stderr, options.quiet || !primary());
  run_steps(options, log, progress, state);
  const auto after_steps = clock_.in(&RunTimes::analysis);  // what follows, unless charged elsewhere
  if (!primary()) {  // a worker rank: rank 0 evaluates and writes the summary
    RunSummary s = summary_of(state);
    if (state.interrupted) s.stop_reason = "interrupted";
    return s;
  }
  if (state.interrupted) {
    RunSummary s = summary_of(state);
    s.stop_reason = "interrupted";
    if (options.stop_like_a_kill) return s;
    // Keep what there is, cheaply: the checkpoint to resume from, no evaluation and no summary.
    if (snapshots_on(options)) write_snapshots(options.run_dir);
    if (writes) save(checkpoint, state, log.sync());
    progress.finish(config_.name + ": interrupted at step " + std::to_string(state.step));
    if (state.on_log_error) std::rethrow_exception(state.on_log_error);
    return s;
  }

  AttentionMapAccumulator maps(config_.model.layers, config_.model.heads, eval_task_->seq_len());
  RunSummary s = final_summary(state, maps);
  s.wall_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (writes) {
    if (snapshots_on(options)) {
      // The final weights: a run stopped by a rule ends at its last step (its update not applied),
      // one that reached max_steps after step max_steps - 1.
      const int64_t last = state.stop != StopRule::none ? state.step : state.step - 1;
      if (!s.diverged() && last >= 0 && (snapshots_.steps.empty() || snapshots_.steps.back() < last))
        take_snapshot(last, true);
      // A diverged run keeps the snapshots it took while finite. Before the checkpoint, which records
      // them: a kill between the two leaves a file that a resume still accepts.
      write_snapshots(options.run_dir);
    }
    const auto timed = clock_.in(&RunTimes::writing);
    // A diverged run keeps its last finite checkpoint and writes no attention maps.
    if (!s.diverged()) {
      save(checkpoint, state, log.sync());
      write_attention_maps(options.run_dir / "attention", maps);
    }
    log.sync();
    s.time_seconds = clock_.times();  // all but the summary's own writing
    write_run_summary(options.run_dir / "summary.json", s);  // last: marks the run finished
  } else {
    s.time_seconds = clock_.times();
  }
  progress.finish(config_.name + ": " +
                  (s.diverged() ? "diverged: " + s.non_finite
                                : stop_text(state.stop) + " after " + std::to_string(state.step) + " steps"));
  if (state.on_log_error) std::rethrow_exception(state.on_log_error);
  return s;
}

}  // namespace sinklab
