// `sinklab inspect RUN [--eval]`: a trained model outside training. Loads the model of a run folder
// (or of a checkpoint inside one) with models/model_loader.h and prints what it is: task shape,
// normalizer, the checkpoint hashes, every parameter by name with its shape and size. With --eval it
// also evaluates the model as the trainer's final evaluation does (train/evaluation_pipeline.h: the run's
// evaluation set, task.eval_seq_len included) and says whether every number equals the run's
// summary.json bit for bit; when one differs it exits 2 naming the file and the fields.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/commands.h"
#include "data/task_registry.h"
#include "models/model_loader.h"
#include "run_files/head_table.h"
#include "run_files/run_summary.h"
#include "train/evaluation_pipeline.h"

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

// The trainer's final evaluation (train/evaluation_pipeline.h) on the loaded weights: the run's
// evaluation set, task.eval_seq_len included.
RunSummary evaluate(Model& model) {
  const EvaluationPipeline pipeline(model.config());
  Graph graph;
  RunSummary s = pipeline.run_summary();
  s.stop_reason = "inspect";
  pipeline.record_final_evaluation(s, pipeline.evaluate(graph, model), graph, model);
  return s;
}

// "/heads/0/sink_score" -> "heads[0].sink_score", as the summary reader names fields.
std::string field_name(const std::string& pointer) {
  std::string name;
  size_t at = 1;
  while (at <= pointer.size()) {
    const size_t next = std::min(pointer.find('/', at), pointer.size());
    const std::string part = pointer.substr(at, next - at);
    const bool index =
        !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    name += index ? "[" + part + "]" : (name.empty() ? "" : ".") + part;
    at = next + 1;
  }
  return name;
}

std::string value_text(const nlohmann::json& j) { return j.is_null() ? "null (not computed)" : j.dump(); }

// The fields of summary.json whose recorded value the re-evaluation does not reproduce bit for bit (a
// number's shortest JSON text is exact), as "field: recorded X, re-evaluated Y". What training alone
// knows (steps, stop reason, train_loss, wall times, revision, onset steps) is taken from the file; a
// field the file lacks (written by an older sinklab) is not compared.
std::vector<std::string> differing_fields(RunSummary now, const RunSummary& recorded) {
  now.steps = recorded.steps;
  now.stop_reason = recorded.stop_reason;
  now.non_finite = recorded.non_finite;
  now.reached_stop_rule = recorded.reached_stop_rule;
  now.train_loss = recorded.train_loss;
  now.wall_seconds = recorded.wall_seconds;
  now.time_seconds = recorded.time_seconds;
  now.git_revision = recorded.git_revision;
  for (size_t i = 0; i < std::min(now.heads.size(), recorded.heads.size()); ++i) {
    now.heads[i].sink_onset_step_50 = recorded.heads[i].sink_onset_step_50;
    now.heads[i].sink_onset_step_90 = recorded.heads[i].sink_onset_step_90;
  }
  // Through text: NaN is null there (an undefined number equals an undefined one), numbers exact.
  const nlohmann::json was = nlohmann::json::parse(nlohmann::json(recorded).dump());
  const nlohmann::json is = nlohmann::json::parse(nlohmann::json(now).dump());
  std::vector<std::string> fields;
  for (const nlohmann::json& op : nlohmann::json::diff(was, is)) {
    const std::string path = op["path"].get<std::string>(), kind = op["op"].get<std::string>();
    if (kind == "add") continue;  // not in the file
    const nlohmann::json::json_pointer pointer(path);
    const std::string re = kind == "remove" ? "not computed" : "re-evaluated " + value_text(is.at(pointer));
    fields.push_back(field_name(path) + ": recorded " + value_text(was.at(pointer)) + ", " + re);
  }
  return fields;
}

// Whether the re-evaluation reproduces the run's summary.json: a verdict line, or RunFileError (exit 2)
// naming the file and the fields that differ (the loaded weights are the run's last checkpoint, which a
// finished run writes after its final evaluation).
std::string compare_with_summary(const RunSummary& now, const fs::path& summary, const std::string& checkpoint) {
  if (!fs::exists(summary)) return "no summary.json to compare with (the run has not finished)";
  const RunSummary recorded = read_run_summary(summary);
  if (recorded.diverged())
    return "summary.json records a diverged run (" + recorded.non_finite + "): no final evaluation to compare with";
  const std::vector<std::string> fields = differing_fields(now, recorded);
  if (fields.empty()) return "equals summary.json bit for bit";
  constexpr size_t kNamed = 5;
  std::string text;
  for (size_t i = 0; i < std::min(fields.size(), kNamed); ++i) text += "\n  " + fields[i];
  if (fields.size() > kNamed) text += "\n  ... and " + std::to_string(fields.size() - kNamed) + " more";
  throw RunFileError(summary.string() + ": differs from the re-evaluation of " + checkpoint + " in " +
                     std::to_string(fields.size()) + " field(s) (the file was changed, is another run's, or the "
                     "checkpoint is not the run's last):" + text);
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  struct Flags {
    std::string run;
    bool eval = false;
    bool wide = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Load a trained model (no optimizer, no training) and show its parameters; --eval re-evaluates it");
  cmd->add_option("RUN", flags->run, "A run folder, or a checkpoint file inside one")->required();
  cmd->add_flag("--eval", flags->eval, "Evaluate on the task's fixed evaluation set with sink statistics");
  cmd->add_flag("--wide", flags->wide,
                "With --eval: every defined column of the head table (default: those that fit 120 characters)");
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
    const RunSummary s = evaluate(*model);
    const fs::path given(flags->run);
    const fs::path folder = fs::is_directory(given) ? given : given.parent_path();
    const std::string checkpoint = (fs::is_directory(given) ? given / "checkpoint.bin" : given).string();
    std::printf("%s", format_head_table(s, flags->wide ? HeadTableWidth::wide : HeadTableWidth::narrow).c_str());
    std::fflush(stdout);
    std::printf("%s\n", compare_with_summary(s, folder / "summary.json", checkpoint).c_str());
  });
}

}  // namespace sinklab::apps
