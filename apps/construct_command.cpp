// sinklab construct relu|softmax [--config BASE.yaml] [--beta B] [--c C] [--layers L] [--heads H] [--out DIR] [--force]
// Writes the explicit weights of the sink paper's theorems (models/constructions.h) as a normal run
// folder: the resolved config, a checkpoint (step 0, no optimizer moments), run.json marked
// `constructed`, then the evaluation the trainer ends with: attention maps and summary.json
// (stop_reason `constructed`). `report`, `inspect --eval` and every analysis command read it unchanged.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "apps/commands.h"
#include "config_loading/config_loader.h"
#include "core/io/file_write.h"
#include "core/thread_count.h"
#include "data/eval_set.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "models/constructions.h"
#include "models/evaluation.h"
#include "models/model_loader.h"
#include "models/sink_evaluation.h"
#include "run_files/attention_map_files.h"
#include "run_files/checkpoint.h"
#include "models/evaluation_summary.h"
#include "run_files/head_table.h"
#include "run_files/run_folder.h"
#include "run_files/run_folder_lock.h"
#include "run_files/run_provenance.h"

namespace sinklab::apps {
namespace {

namespace fs = std::filesystem;

struct ConstructArgs {
  std::string kind;
  std::string config;
  ConstructionParams params;
  std::optional<int> layers, heads;
  std::string out;
  bool force = false;
  bool wide = false;
  bool beta_given = false, c_given = false;  // each applies to one kind only
};

ConstructionKind kind_of(const std::string& name) {
  return name == "relu" ? ConstructionKind::relu : ConstructionKind::softmax;  // CLI11 admits only the two
}

// The paper's own model for the kind: its single layer, or its residual stack when --layers > 1 (the
// head's output reaches the model's output past the other blocks only through the residual stream).
std::string default_base(const ConstructArgs& a) {
  return "configs/paper/" + std::string(a.layers && *a.layers > 1 ? "2x2_" : "1x1_") + a.kind + ".yaml";
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// construct_softmax_beta20, construct_relu_c1: the run's name in summaries and reports.
std::string run_name(const ConstructArgs& a) {
  return "construct_" + a.kind +
         (a.kind == "softmax" ? "_beta" + number_text(a.params.beta) : "_c" + number_text(a.params.c));
}

RunConfig base_config(const ConstructArgs& a, const fs::path& file, ConstructionKind kind) {
  if (!fs::exists(file))
    throw std::invalid_argument("--config " + file.string() + ": no such file" +
                                (a.config.empty()
                                     ? std::string(" (the default is relative to the repository root; run from "
                                                   "there or pass --config)")
                                     : std::string()));
  const std::string name = "name=" + run_name(a);
  // No memory check: nothing is trained (the loader's estimate is for training batches).
  const RunConfig as_written = load_run_config(file, {name}, std::nullopt);
  if (a.layers && *a.layers > 1 && !as_written.model.residual)
    throw ConfigError(file.string(), 0, "model.residual",
                      "--layers " + std::to_string(*a.layers) +
                          " needs the residual stream (the head's output has to pass "
                          "the other blocks): needs true, as configs/paper/2x2_" +
                          a.kind + ".yaml, the default base with --layers > 1");
  // --layers and --heads go through the loader's checks; its messages name the flag.
  const std::vector<std::pair<std::string, std::optional<int>>> flags{{"layers", a.layers}, {"heads", a.heads}};
  std::vector<std::string> overrides{name};
  for (const auto& [flag, value] : flags)
    if (value) overrides.push_back("model." + flag + "=" + std::to_string(*value));
  RunConfig config;
  try {
    config = load_run_config(file, overrides, std::nullopt);
  } catch (const ConfigError& e) {
    for (const auto& [flag, value] : flags)
      if (value && e.source() == "--set model." + flag + "=" + std::to_string(*value))
        throw ConfigError("--" + flag + " " + std::to_string(*value), 0, e.key(), e.detail());
    throw;
  }
  try {
    check_construction_base(config, kind);
  } catch (const ConstructionError& e) {
    throw ConfigError(file.string(), 0, e.key(), e.detail());
  }
  return config;
}

// As `train` does: a run (or the base config itself) is overwritten only with --force.
void check_can_write(const ConstructArgs& a, const fs::path& base, const RunConfig& config, const fs::path& dir) {
  check_new_run_folder(dir, base, to_yaml(config), a.force, "pass --force to replace it");
}

// The trainer's final evaluation (train/trainer.cpp): the fixed evaluation set, sink statistics and
// attention maps over the first eval_attention_samples inputs, into the summary a finished run writes.
RunSummary evaluate_construction(Model& model, AttentionMapAccumulator& maps) {
  const RunConfig& c = model.config();
  const auto task = make_task(evaluation_task_config(c.task), c.model.residual);
  const EvalSet set(*task, c.task);
  EvalOptions options;
  options.attention_samples = c.analysis.eval_attention_samples;
  SinkEvaluation e = evaluate_with_sink_statistics(model, set, options, &maps);
  const EvalMetrics& m = e.metrics;
  if (!std::isfinite(m.mse) || !std::isfinite(m.max_abs_error))
    throw std::runtime_error("the construction's evaluation is not finite (eval MSE " + std::to_string(m.mse) + ")");
  RunSummary s = summary_of_run(c, *task);
  s.steps = 0;
  s.stop_reason = "constructed";
  s.reached_stop_rule = false;                            // no training ran
  s.train_loss = std::numeric_limits<double>::quiet_NaN();  // null: nothing was trained
  s.git_revision = git_revision();
  add_evaluation(s, m, task->shape().loss, std::move(e.heads));
  return s;
}

void run_construct(const ConstructArgs& a) {
  const auto started = std::chrono::steady_clock::now();
  const ConstructionKind kind = kind_of(a.kind);
  if (kind == ConstructionKind::relu && a.beta_given)
    throw ConstructionError("--beta", "applies to `construct softmax` only (relu's weights take --c)");
  if (kind == ConstructionKind::softmax && a.c_given)
    throw ConstructionError("--c", "applies to `construct relu` only (softmax's weights take --beta)");
  check_construction_params(kind, a.params);  // "--beta: ..." before any file is read
  const fs::path base = a.config.empty() ? fs::path(default_base(a)) : fs::path(a.config);
  const RunConfig config = base_config(a, base, kind);
  const fs::path dir = a.out.empty() ? fs::path("runs") / config.name : fs::path(a.out);
  check_can_write(a, base, config, dir);
  const std::unique_ptr<Model> model = build_construction(config, kind, a.params);
  set_thread_count(config.threads);  // the run's thread count, as the trainer and `inspect --eval` set it

  RunFolderLock lock(dir);
  check_can_write(a, base, config, dir);
  clear_run_files(dir);
  write_file_atomically(dir / "config.yaml", to_yaml(config));
  nlohmann::json run = provenance(command_line(), config.threads, config.seed);
  run["constructed"] = {{"kind", a.kind}, {"beta", a.params.beta}, {"c", a.params.c}};
  write_provenance(dir, run);
  // Step 0, no moment blocks: the weights of a run that never trained (a fresh trainer's data stream).
  TrainingState state;
  state.rng = seed_stream(config.seed, kDataStream).state();
  save_checkpoint(dir / "checkpoint.bin", model->checkpoint_hashes(), model->parameters(), state);

  AttentionMapAccumulator maps(config.model.layers, config.model.heads, evaluation_task_config(config.task).seq_len);
  RunSummary summary = evaluate_construction(*model, maps);
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  write_attention_maps(dir / "attention", maps);
  write_run_summary(dir / "summary.json", summary);  // last: marks the run finished
  std::printf("%s", format_head_table(summary, a.wide ? HeadTableWidth::wide : HeadTableWidth::narrow).c_str());
  std::printf("eval_mse %.6e, eval_max_abs_error %.6e\n", summary.eval_mse, summary.eval_max_abs_error);
  std::printf("run directory: %s\n", dir.c_str());
}

}  // namespace

void add_construct_command(CLI::App& app) {
  auto args = std::make_shared<ConstructArgs>();
  CLI::App* cmd = app.add_subcommand(
      "construct",
      "Write the theorems' explicit relu or softmax weights as a run folder, evaluated like a trained run");
  cmd->add_option("kind", args->kind, "relu (no sink, exact) or softmax (a BOS sink of strength beta)")
      ->required()
      ->check(CLI::IsMember({"relu", "softmax"}));
  cmd->add_option("--config", args->config,
                  "Base config (default configs/paper/1x1_<kind>.yaml, or 2x2_<kind>.yaml with --layers > 1)");
  // CLI11 would read an empty value as 0.
  const CLI::Validator not_empty(
      [](const std::string& text) {
        return text.empty() ? std::string("an empty value is not a number") : std::string();
      },
      "NUMBER");
  cmd->add_option("--beta", args->params.beta, "softmax: the BOS logit")->capture_default_str()->check(not_empty);
  cmd->add_option("--c", args->params.c, "relu: the trigger row's logit on every non-BOS key")
      ->capture_default_str()
      ->check(not_empty);
  cmd->add_option("--layers", args->layers,
                  "Layers (default: the base config's); block 0 head 0 carries the construction")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--heads", args->heads, "Heads per layer (default: the base config's)")->check(CLI::PositiveNumber);
  cmd->add_option("--out", args->out, "Run directory (default runs/<name>, e.g. runs/construct_softmax_beta20)");
  cmd->add_flag("--force", args->force, "Replace a finished or unfinished run in --out");
  cmd->add_flag("--wide", args->wide,
                "Every defined column of the head table (default: those that fit 120 characters)");
  cmd->callback([args, cmd] {
    args->beta_given = cmd->count("--beta") > 0;
    args->c_given = cmd->count("--c") > 0;
    run_construct(*args);
  });
}

}  // namespace sinklab::apps
