// `sinklab inspect RUN [--eval]`: a trained model outside training. Loads the model of a run folder
// (or of a checkpoint inside one) with models/model_loader.h and prints what it is: task shape,
// normalizer, the checkpoint hashes, every parameter by name with its shape and size. With --eval it
// also evaluates the model on the task's fixed evaluation set with the sink statistics, and says
// whether the numbers equal the run's summary.json bit for bit (exit 1 when they differ, like cmp).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "apps/commands.h"
#include "core/thread_count.h"
#include "data/eval_set.h"
#include "data/task_registry.h"
#include "models/evaluation.h"
#include "models/model_loader.h"
#include "stats/sink_observer.h"
#include "models/evaluation_summary.h"
#include "run_files/head_table.h"

namespace sinklab::apps {
namespace {

namespace fs = std::filesystem;

constexpr size_t kListedValues = 8;  // parameters this small are printed in full

void print_parameters(const Model& model) {
  const auto values = model.parameters().values();
  std::printf("%-40s %-14s %10s %12s %12s\n", "parameter", "shape", "count", "rms", "max |w|");
  for (const ParameterInfo& p : model.parameters().parameters()) {
    const auto n = static_cast<size_t>(p.shape.numel());
    double sq = 0, max_abs = 0;
    for (size_t i = 0; i < n; ++i) {
      const double v = values[p.offset + i];
      sq += v * v;
      max_abs = std::max(max_abs, std::fabs(v));
    }
    std::printf("%-40s %-14s %10zu %12.4e %12.4e", p.name.c_str(), p.shape.str().c_str(), n,
                std::sqrt(sq / static_cast<double>(n)), max_abs);
    // Learned per-head scalars (a sink logit, an SSMax scale) are read for their values and signs.
    if (n <= kListedValues)
      for (size_t i = 0; i < n; ++i) std::printf(" %.6g", values[p.offset + i]);
    std::printf("\n");
  }
  std::printf("%zu parameters\n", values.size());
}

// The evaluation the trainer runs at the end, on the loaded weights.
RunSummary evaluate(Model& model) {
  const RunConfig& c = model.config();
  set_thread_count(c.threads);  // the run's thread count: the same bits as its own evaluation
  const auto task = make_task(c.task, c.model.residual);
  const EvalSet set(*task, c.task);
  const TaskObjective objective(task->shape());
  SinkStatisticsAccumulator stats(c.model.layers, c.model.heads, task->seq_len(), c.analysis.sink_eps);
  SinkObserver observer(&stats, nullptr);
  AttentionObserver* const observers[] = {&observer};
  EvalOptions options;
  options.attention_samples = c.analysis.eval_attention_samples;
  Graph graph;
  const EvalMetrics m = evaluate_model(graph, model.transformer(), objective, set, observers, options);
  RunSummary s = summary_of_run(c, *task);
  s.stop_reason = "inspect";
  add_evaluation(s, m, task->shape().loss, stats.finish());
  return s;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Whether the evaluation equals the one the run recorded (the loaded weights are the run's last
// checkpoint, which a finished run writes after its final evaluation).
bool equals_summary(const RunSummary& now, const RunSummary& recorded) {
  bool same = same_bits(now.eval_mse, recorded.eval_mse) && same_bits(now.eval_max_abs_error, recorded.eval_max_abs_error) &&
              now.eval_loss.has_value() == recorded.eval_loss.has_value() &&
              same_bits(now.eval_loss.value_or(0), recorded.eval_loss.value_or(0)) &&
              same_bits(now.eval_accuracy.value_or(0), recorded.eval_accuracy.value_or(0)) &&
              now.heads.size() == recorded.heads.size();
  for (size_t i = 0; same && i < now.heads.size(); ++i)
    for (const HeadStatistic& stat : kHeadStatistics)
      if (!stat.is_flag() && !same_bits(now.heads[i].*stat.number, recorded.heads[i].*stat.number)) same = false;
  return same;
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  struct Flags {
    std::string run;
    bool eval = false;
    bool wide = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("inspect", "Load a trained model (no optimizer, no training) and show its parameters; --eval re-evaluates it");
  cmd->add_option("RUN", flags->run, "A run folder, or a checkpoint file inside one")->required();
  cmd->add_flag("--eval", flags->eval, "Evaluate on the task's fixed evaluation set with sink statistics");
  cmd->add_flag("--wide", flags->wide, "With --eval: every defined column of the head table (default: those that fit 120 characters)");
  cmd->callback([flags] {
    const std::unique_ptr<Model> model = load_model(flags->run);
    const RunConfig& c = model->config();
    const TaskShape shape = task_shape_of(c.task, c.model.residual);
    const CheckpointHashes hashes = model->checkpoint_hashes();
    std::printf("run %s: task %s (%s %d -> %d, seq_len %d, %s), normalizer %s, %d layer(s) x %d head(s)\n",
                flags->run.c_str(), c.task.name.c_str(), shape.input == TaskInput::tokens ? "token ids" : "vectors",
                shape.input_dim, shape.output_dim, shape.seq_len, shape.loss == TaskLoss::mse ? "mse" : "cross-entropy",
                c.model.attention.normalizer.name.c_str(), c.model.layers, c.model.heads);
    std::printf("model-shaping hash %016llx, config hash %016llx\n", static_cast<unsigned long long>(hashes.model),
                static_cast<unsigned long long>(hashes.config));
    print_parameters(*model);
    if (!flags->eval) return;
    RunSummary s = evaluate(*model);
    const fs::path given(flags->run);
    const fs::path summary = (fs::is_directory(given) ? given : given.parent_path()) / "summary.json";
    std::string verdict = "no summary.json to compare with (the run has not finished)";
    bool differs = false;
    if (fs::exists(summary)) {
      const RunSummary recorded = read_run_summary(summary);
      s.steps = recorded.steps;
      differs = !equals_summary(s, recorded);
      verdict = differs ? "differs from summary.json (other weights or build?)" : "equals summary.json bit for bit";
    }
    std::printf("%s%s\n", format_head_table(s, flags->wide ? HeadTableWidth::wide : HeadTableWidth::narrow).c_str(), verdict.c_str());
    std::fflush(stdout);
    if (differs) throw CLI::RuntimeError(1);  // like cmp: a script can tell
  });
}

}  // namespace sinklab::apps
