#include "train/trainer.h"

#ifdef SINKLAB_HAVE_OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>

#include "configs/config_writer.h"
#include "core/ops/losses.h"
#include "train/checkpoint.h"
#include "train/interrupt.h"
#include "train/lr_schedule.h"
#include "train/progress_reporter.h"
#include "train/run_provenance.h"
#include "train/sink_observer.h"

namespace sinklab {
namespace {

constexpr int kEvalChunk = 250;  // evaluation inputs per forward pass

// The seed splits into independent streams, so that model init and data never share draws.
Rng stream(uint64_t seed, uint64_t which) {
  Rng root(seed);
  for (uint64_t i = 0; i < which; ++i) root.next();
  return root.split();
}

}  // namespace

Trainer::Trainer(const RunConfig& config)
    : config_(config),
      task_(make_task(config.task, config.model.residual)),
      data_rng_(stream(config.seed, 1)) {
  // Results are bit-identical for a given thread count; the count is part of the run's config.
#ifdef SINKLAB_HAVE_OPENMP
  omp_set_num_threads(config.threads);
#endif
  model_ = std::make_unique<Transformer>(params_, config.model,
                                         ModelShape{task_->input_dim(), task_->output_dim(), task_->seq_len()});
  params_.finalize();
  Rng init = stream(config.seed, 0);
  model_->initialize(init);
  optimizer_ = make_optimizer(config.optimizer);

  const size_t B = static_cast<size_t>(config.train.batch_size), T = static_cast<size_t>(task_->seq_len());
  inputs_.resize(B * T * static_cast<size_t>(task_->input_dim()));
  targets_.resize(B * T * static_cast<size_t>(task_->output_dim()));
  roles_.resize(B * T);
  triggers_.resize(B);
  eval_set_ = std::make_unique<EvalSet>(*task_, config.task.eval_samples, config.task.eval_seed);
  train_stats_ = std::make_unique<SinkStatisticsAccumulator>(config.model.layers, config.model.heads, task_->seq_len(),
                                                             config.analysis.sink_eps);
}

Trainer::~Trainer() = default;

double Trainer::train_step(int64_t step, bool collect_stats) {
  const int64_t B = config_.train.batch_size, T = task_->seq_len();
  task_->sample(static_cast<int>(B), data_rng_, Split::train,
                BatchView{inputs_.data(), targets_.data(), roles_.data(), triggers_.data()});
  graph_.reset();
  params_.zero_grads();
  const Tensor x(inputs_.data(), nullptr, Shape{B, T, task_->input_dim()});
  const Tensor y(targets_.data(), nullptr, Shape{B, T, task_->output_dim()});

  SinkObserver observer(train_stats_.get(), nullptr);
  observer.set_triggers(triggers_.data());
  std::optional<AttentionObservers::Registration> registration;
  if (collect_stats) {
    train_stats_->reset();
    registration.emplace(model_->observers().observe(observer));
  }
  const Tensor pred = model_->forward(graph_, x);
  registration.reset();
  const Tensor loss = mse_loss(graph_, pred, y);
  last_max_abs_error_ = max_abs_error(pred, y);
  const double loss_value = loss.data()[0];
  const bool stop_now = config_.train.stop_max_abs_error > 0 && last_max_abs_error_ < config_.train.stop_max_abs_error;
  if (stop_now) return loss_value;  // the step's own predictions meet the rule: no further update

  graph_.backward(loss);
  last_grad_norm_ = config_.optimizer.clip_grad_norm > 0 ? clip_gradient_norm(params_, config_.optimizer.clip_grad_norm)
                                                         : gradient_norm(params_);
  optimizer_->step(params_, static_cast<float>(learning_rate(config_.optimizer, step, config_.train.max_steps)));
  return loss_value;
}

EvalResult Trainer::evaluate(AttentionMapAccumulator* maps) {
  const int64_t T = task_->seq_len();
  SinkStatisticsAccumulator stats(config_.model.layers, config_.model.heads, static_cast<int>(T), config_.analysis.sink_eps);
  SinkObserver observer(&stats, maps);
  std::optional<AttentionObservers::Registration> registration(model_->observers().observe(observer));
  NoGradGuard no_grad(graph_);
  double sq_sum = 0, max_err = 0;
  const int n = eval_set_->size();
  // Attention statistics and maps use the first eval_attention_samples inputs; the error uses all.
  const int with_attention = std::min(n, config_.analysis.eval_attention_samples);
  for (int begin = 0; begin < n;) {
    if (begin >= with_attention) registration.reset();
    const int limit = begin < with_attention ? with_attention : n;
    const int count = std::min(kEvalChunk, limit - begin);
    const ConstBatchView v = eval_set_->view(begin, count);
    observer.set_triggers(v.trigger_positions);
    graph_.reset();
    // Inputs without gradients are never written: the const_cast only adapts to Tensor's float*.
    const Tensor x(const_cast<float*>(v.inputs), nullptr, Shape{count, T, task_->input_dim()});
    const Tensor y(const_cast<float*>(v.targets), nullptr, Shape{count, T, task_->output_dim()});
    const Tensor pred = model_->forward(graph_, x);
    const Tensor loss = mse_loss(graph_, pred, y);
    sq_sum += static_cast<double>(loss.data()[0]) * static_cast<double>(pred.numel());
    max_err = std::max(max_err, static_cast<double>(max_abs_error(pred, y)));
    begin += count;
  }
  graph_.reset();
  const double entries = static_cast<double>(n) * static_cast<double>(T) * task_->output_dim();
  return {sq_sum / entries, max_err, stats.finish()};
}

void Trainer::save(const std::filesystem::path& path, int64_t step) {
  save_checkpoint(path, config_hash(config_), params_, TrainingState{step, optimizer_->steps(), data_rng_.state()});
}

void Trainer::resume(const std::filesystem::path& checkpoint) {
  const TrainingState s = load_checkpoint(checkpoint, config_hash(config_), params_);
  start_step_ = s.step;
  optimizer_->set_steps(s.optimizer_steps);
  data_rng_.set_state(s.rng);
}

RunSummary Trainer::run(const TrainOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const bool writes = !options.run_dir.empty();
  if (!options.resume_from.empty()) resume(options.resume_from);
  int64_t step = start_step_;
  std::ofstream metrics;
  if (writes) {
    metrics.open(options.run_dir / "metrics.jsonl", step > 0 ? std::ios::app : std::ios::trunc);
    if (!metrics) throw RunFileError("cannot write " + (options.run_dir / "metrics.jsonl").string());
  }
  ProgressReporter progress(stderr, options.quiet);
  const TrainConfig& tc = config_.train;
  std::string stop_reason = "max_steps";
  double loss = 0;
  auto window_start = Clock::now();
  int64_t window_steps = 0;
  double steps_per_second = 0;
  bool interrupted = false;
  for (; step < tc.max_steps; ++step) {
    if ((options.stop_at_step >= 0 && step >= options.stop_at_step) || interrupt_requested()) {
      interrupted = true;
      break;
    }
    const bool log_now = step % tc.log_every == 0;
    loss = train_step(step, log_now);
    ++window_steps;
    const bool error_rule = tc.stop_max_abs_error > 0 && last_max_abs_error_ < tc.stop_max_abs_error;
    const bool loss_rule = tc.stop_loss > 0 && loss < tc.stop_loss;
    if (log_now || error_rule || loss_rule) {
      const double secs = std::chrono::duration<double>(Clock::now() - window_start).count();
      if (secs > 0 && window_steps > 1) steps_per_second = static_cast<double>(window_steps) / secs;
      window_start = Clock::now();
      window_steps = 0;
    }
    if (log_now) {
      MetricsRecord r;
      r.step = step;
      r.loss = loss;
      r.max_abs_error = last_max_abs_error_;
      r.lr = learning_rate(config_.optimizer, step, tc.max_steps);
      r.grad_norm = last_grad_norm_;
      r.steps_per_second = steps_per_second;
      r.heads = train_stats_->finish();
      if (tc.eval_every > 0 && step % tc.eval_every == 0) {
        const EvalResult e = evaluate(nullptr);
        r.eval_mse = e.mse;
        r.eval_max_abs_error = e.max_abs_error;
      }
      if (writes) {
        write_metrics_line(metrics, r);
        metrics.flush();
      }
      progress.update({step, tc.max_steps, loss, last_max_abs_error_, steps_per_second});
    }
    if (writes && tc.checkpoint_every > 0 && step > 0 && step % tc.checkpoint_every == 0) save(options.run_dir / "checkpoint.bin", step);
    if (error_rule || loss_rule) {
      stop_reason = error_rule ? "max_abs_error" : "loss";
      break;
    }
  }
  if (interrupted) {
    // Keep what there is, cheaply: the checkpoint to resume from, no evaluation and no summary.
    if (writes) save(options.run_dir / "checkpoint.bin", step);
    progress.finish(config_.name + ": interrupted at step " + std::to_string(step));
    RunSummary s;
    s.name = config_.name;
    s.seed = config_.seed;
    s.steps = step;
    s.stop_reason = "interrupted";
    return s;
  }

  AttentionMapAccumulator maps(config_.model.layers, config_.model.heads, task_->seq_len());
  const EvalResult eval = evaluate(&maps);
  RunSummary s;
  s.name = config_.name;
  s.seed = config_.seed;
  s.steps = step;
  s.stop_reason = stop_reason;
  s.reached_stop_rule = stop_reason != "max_steps";
  s.train_loss = loss;
  s.eval_mse = eval.mse;
  s.eval_max_abs_error = eval.max_abs_error;
  s.normalizer = config_.model.attention.normalizer.name;
  s.layers = config_.model.layers;
  s.heads_per_layer = config_.model.heads;
  s.seq_len = task_->seq_len();
  s.eval_trigger = config_.task.eval_trigger;
  s.sink_eps = config_.analysis.sink_eps;
  s.uniform_baseline = uniform_causal_baseline(task_->seq_len());
  s.sink_rate = sink_rate(eval.heads);
  s.threads = config_.threads;
  s.git_revision = git_revision();
  s.heads = eval.heads;
  s.wall_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (writes) {
    save(options.run_dir / "checkpoint.bin", step);
    maps.write(options.run_dir / "attention");
    write_run_summary(options.run_dir / "summary.json", s);  // last: marks the run finished
  }
  progress.finish(config_.name + ": " + s.stop_reason + " after " + std::to_string(step) + " steps");
  return s;
}

}  // namespace sinklab
