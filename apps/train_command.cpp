// sinklab train CONFIG [--set k=v]... [--out DIR] [--seed N] [--threads N] [--resume CKPT] [--quiet] [--force]
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "configs/config_loader.h"
#include "data/task.h"
#include "layers/normalizers/normalizer_registry.h"
#include "train/head_table.h"
#include "train/interrupt.h"
#include "train/run_provenance.h"
#include "train/trainer.h"

namespace sinklab::apps {
namespace {

struct TrainArgs {
  std::string config;
  std::vector<std::string> sets;
  std::string out;
  std::string resume;
  std::optional<std::string> seed;  // as typed: the loader checks it like --set seed=N (the full uint64 range)
  std::optional<std::string> threads;  // as typed, checked by the loader like --set threads=N
  bool quiet = false;
  bool force = false;
};

namespace fs = std::filesystem;

void run_train(const TrainArgs& a) {
  std::vector<std::string> overrides = a.sets;
  if (a.seed) overrides.push_back("seed=" + *a.seed);
  if (a.threads) overrides.push_back("threads=" + *a.threads);
  const ConfigVocabulary vocab{normalizer_registry().names(), task_names()};
  const RunConfig config = load_run_config(a.config, overrides, vocab);  // validates before anything is written

  const fs::path dir = a.out.empty() ? fs::path("runs") / (config.name + "-seed" + std::to_string(config.seed)) : fs::path(a.out);
  if (fs::exists(dir / "summary.json") && !a.force && a.resume.empty())
    throw std::invalid_argument("--out " + dir.string() + " already holds a finished run (summary.json); pass --force to overwrite");
  if (!a.resume.empty() && !fs::exists(a.resume)) throw std::invalid_argument("--resume: no such checkpoint: " + a.resume);

  // Model and checkpoint problems surface here, before the run directory exists.
  Trainer trainer(config);
  if (!a.resume.empty()) trainer.resume(a.resume);
  fs::create_directories(dir);
  fs::remove(dir / "summary.json");
  {
    std::FILE* f = std::fopen((dir / "config.yaml").c_str(), "w");
    if (!f) throw std::invalid_argument("cannot write " + (dir / "config.yaml").string());
    const std::string yaml = to_yaml(config);
    std::fwrite(yaml.data(), 1, yaml.size(), f);
    std::fclose(f);
  }
  write_provenance(dir, provenance(command_line(), config.threads, config.seed));
  TrainOptions options;
  options.run_dir = dir;
  options.quiet = a.quiet;
  install_interrupt_handlers();
  const RunSummary summary = trainer.run(options);
  if (summary.stop_reason == "interrupted") {
    std::fprintf(stderr, "sinklab: interrupted at step %lld; continue with: sinklab train %s --out %s --resume %s\n",
                 static_cast<long long>(summary.steps), a.config.c_str(), dir.c_str(), (dir / "checkpoint.bin").c_str());
    throw CLI::RuntimeError(128 + interrupt_signal());
  }
  std::printf("%s", format_head_table(summary).c_str());
  std::printf("run directory: %s\n", dir.c_str());
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand("train", "Train one model from a YAML config and measure its attention sinks");
  cmd->add_option("config", args->config, "YAML config file (see docs/config.md)")->required();
  cmd->add_option("--set", args->sets, "Override a config key: --set model.attention.normalizer=relu (repeatable)");
  cmd->add_option("--out", args->out, "Run directory (default runs/<name>-seed<seed>)");
  cmd->add_option("--seed", args->seed, "Seed, 0 .. 2^64-1 (same as --set seed=N)");
  cmd->add_option("--threads", args->threads, "OpenMP threads, 1 .. 256 (same as --set threads=N)");
  cmd->add_option("--resume", args->resume, "Continue from a checkpoint written by the same config");
  cmd->add_flag("--quiet", args->quiet, "No progress output");
  cmd->add_flag("--force", args->force, "Overwrite a finished run in --out");
  cmd->callback([args] { run_train(*args); });
}

}  // namespace sinklab::apps
