// sinklab train CONFIG [--set k=v]... [--name NAME] [--out DIR] [--seed N] [--threads N] [--quiet] [--force] [--wide]
// sinklab train --resume RUN_DIR [--quiet] [--wide]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "config_loading/changed_overrides.h"
#include "config_loading/config_loader.h"
#include "config_loading/run_name.h"
#include "config_loading/utf8.h"
#include "core/io/file_write.h"
#include "run_files/head_table.h"
#include "train/interrupt.h"
#include "data/corpus_fingerprint.h"
#include "run_files/run_folder.h"
#include "run_files/run_folder_lock.h"
#include "run_files/run_provenance.h"
#include "sweep/run_naming.h"
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
  std::optional<std::string> name;     // the run name; default: the config's name and what the flags change
  bool quiet = false;
  bool force = false;
  bool wide = false;  // the head table with every defined column, past 120 characters
};

namespace fs = std::filesystem;


bool flags_shape_config(const TrainArgs& a) {
  return !a.config.empty() || !a.sets.empty() || a.seed || a.threads || a.name;
}

// The run name given on the command line (--name or --set name=...), if any.
bool name_given(const TrainArgs& a) {
  if (a.name) return true;
  for (const auto& o : a.sets)
    if (split_override(o).first == "name") return true;
  return false;
}

void check_name_flag(const std::string& name) {
  std::string problem = utf8_problem(name);
  if (problem.empty()) problem = run_name_problem(name);
  if (!problem.empty()) throw std::invalid_argument("--name: the run name " + problem);
}

// Unless named, a run is called after what it runs: the config's name plus every flag that changes a
// value of the file ("1x1_softmax-normalizer=relu"); the seed goes into the folder name instead.
std::string derived_name(const TrainArgs& a, const RunConfig& config, const std::vector<std::string>& overrides) {
  std::vector<sweep::KeyValue> parts;
  for (auto& kv : changed_overrides(a.config, overrides, config))
    if (kv.first != "seed") parts.push_back(std::move(kv));
  return sweep::name_with_overrides(config.name, parts);
}

RunConfig config_from_flags(const TrainArgs& a) {
  if (a.name) check_name_flag(*a.name);
  std::vector<std::string> overrides = a.sets;
  if (a.seed) overrides.push_back("seed=" + *a.seed);
  if (a.threads) overrides.push_back("threads=" + *a.threads);
  RunConfig config = load_run_config(a.config, overrides);  // validates before anything is written
  if (a.name) {
    config.name = *a.name;
  } else if (!name_given(a)) {
    config.name = derived_name(a, config, overrides);
  }
  return config;
}

// "key: a" vs "key: b" for the first line where two resolved configs differ.
std::string first_difference(const std::string& ours, const std::string& theirs) {
  std::istringstream a(ours), b(theirs);
  std::string la, lb;
  while (true) {
    const bool more_a = static_cast<bool>(std::getline(a, la)), more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "";
    if (!more_a) la = "(nothing)";
    if (!more_b) lb = "(nothing)";
    if (la != lb) return "'" + la + "' in the run, '" + lb + "' from the flags";
  }
}

struct Resumption {
  fs::path dir, checkpoint;
};

// --resume takes RUN_DIR or RUN_DIR/checkpoint.bin; the run's own config.yaml is the config.
Resumption resumption_of(const TrainArgs& a) {
  const fs::path given(a.resume);
  if (!fs::exists(given)) throw std::invalid_argument("--resume " + a.resume + ": no such run folder or checkpoint");
  Resumption r;
  r.dir = fs::is_directory(given) ? given : given.parent_path();
  if (r.dir.empty()) r.dir = ".";
  r.checkpoint = fs::is_directory(given) ? given / "checkpoint.bin" : given;
  if (a.force) throw std::invalid_argument("--resume continues a run and --force starts it over: pass one of them");
  if (!a.out.empty() && fs::weakly_canonical(a.out) != fs::weakly_canonical(r.dir))
    throw std::invalid_argument("--resume " + a.resume + " continues in its own folder " + r.dir.string() + "; leave out --out " + a.out);
  return r;
}

RunConfig resumed_config(const TrainArgs& a, const Resumption& r) {
  const fs::path own = r.dir / "config.yaml";
  if (!fs::exists(own)) throw std::invalid_argument("--resume " + a.resume + ": " + own.string() + " is missing, so this is not a sinklab run folder");
  const RunConfig config = load_run_config(own, {});
  if (flags_shape_config(a)) {
    TrainArgs from_flags = a;
    if (from_flags.config.empty()) from_flags.config = own.string();
    RunConfig flags_config = config_from_flags(from_flags);
    // A derived name is no part of what runs (and runs started before names were derived have another).
    if (!name_given(a)) flags_config.name = config.name;
    const std::string diff = first_difference(to_yaml(config), to_yaml(flags_config));
    if (!diff.empty())
      throw std::invalid_argument("--resume " + a.resume + ": the config or flags given differ from the run's own " + own.string() +
                                  " (" + diff + "); a resumed run keeps its config: leave them out");
  }
  return config;
}

void check_can_resume(const Resumption& r) {
  const std::string dir = r.dir.string();
  if (inspect_run_folder(r.dir) == RunFolderState::finished)
    throw std::invalid_argument("--resume: " + dir + " holds a finished run (summary.json); nothing to resume");
  if (!fs::exists(r.checkpoint))
    throw std::invalid_argument("--resume: " + r.checkpoint.string() +
                                " is missing: the run was stopped before its first checkpoint; start it over with `" +
                                sinklab_command({"train", "CONFIG", "--out", dir, "--force"}) + "`");
}

// A fresh run may not overwrite a run (or the user's own config file) without --force.
void check_can_start(const TrainArgs& a, const RunConfig& config, const fs::path& dir) {
  check_new_run_folder(dir, a.config, to_yaml(config), a.force,
                       "continue it with `" + sinklab_command({"train", "--resume", dir.string()}) + "`, or pass --force to start over");
}

void report_end(const RunSummary& summary, const fs::path& dir, HeadTableWidth width) {
  switch (outcome_of(summary)) {
    case RunOutcome::interrupted:
      std::fprintf(stderr, "sinklab: interrupted at step %lld; continue with: %s\n", static_cast<long long>(summary.steps),
                   sinklab_command({"train", "--resume", dir.string()}).c_str());
      throw CLI::RuntimeError(128 + interrupt_signal());
    case RunOutcome::diverged:
      std::fprintf(stderr, "sinklab: diverged: %s; summary with null metrics in %s\n", summary.non_finite.c_str(),
                   (dir / "summary.json").c_str());
      throw CLI::RuntimeError(kTrainExitDiverged);
    case RunOutcome::finished:
      std::printf("%s", format_head_table(summary, width).c_str());
      std::printf("run directory: %s\n", dir.c_str());
      return;
  }
}

void run_train(const TrainArgs& a) {
  const bool resuming = !a.resume.empty();
  if (!resuming && a.config.empty()) throw std::invalid_argument("train: give a CONFIG file, or --resume RUN_DIR");
  std::optional<Resumption> resumption;
  if (resuming) resumption = resumption_of(a);
  const RunConfig config = resuming ? resumed_config(a, *resumption) : config_from_flags(a);
  const fs::path dir = resuming             ? resumption->dir
                       : a.out.empty()      ? fs::path("runs") / (config.name + "-seed" + std::to_string(config.seed))
                                            : fs::path(a.out);
  // Everything a user can get wrong is checked before the folder is touched; then again under the lock.
  const auto check_folder = [&] {
    if (resuming) {
      check_can_resume(*resumption);
      check_corpus_unchanged(dir, config.task);
    } else {
      check_can_start(a, config, dir);
    }
  };
  check_folder();
  Trainer trainer(config);  // model problems surface here
  if (resuming) trainer.resume(resumption->checkpoint);  // so do checkpoint problems

  RunFolderLock lock(dir);
  check_folder();
  TrainOptions options;
  options.run_dir = dir;
  options.quiet = a.quiet;
  if (resuming) {
    options.resume_from = resumption->checkpoint;
  } else {
    clear_run_files(dir);
    write_file_atomically(dir / "config.yaml", to_yaml(config));
    nlohmann::json info = provenance(command_line(), config.threads, config.seed);
    if (auto corpus = corpus_fingerprint(config.task)) info["corpus"] = std::move(*corpus);
    write_provenance(dir, info);
  }
  install_interrupt_handlers();
  report_end(trainer.run(options), dir, a.wide ? HeadTableWidth::wide : HeadTableWidth::narrow);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand("train", "Train one model from a YAML config and measure its attention sinks");
  cmd->add_option("config", args->config, "YAML config file (see docs/config.md); not needed with --resume");
  cmd->add_option("--set", args->sets, "Override a config key: --set model.attention.normalizer=relu (repeatable)");
  cmd->add_option("--name", args->name,
                  "Run name (default: the config's name, then each --set/--threads that changes the file's "
                  "value, e.g. 1x1_softmax-normalizer=relu)");
  cmd->add_option("--out", args->out, "Run directory (default runs/<name>-seed<seed>)");
  cmd->add_option("--seed", args->seed, "Seed, 0 .. 2^64-1 (same as --set seed=N)");
  cmd->add_option("--threads", args->threads, "OpenMP threads, 1 .. 256 (same as --set threads=N)");
  cmd->add_option("--resume", args->resume,
                  "Continue an unfinished run bit-identically: RUN_DIR (or RUN_DIR/checkpoint.bin); the run's own config.yaml is used");
  cmd->add_flag("--quiet", args->quiet, "No progress output");
  cmd->add_flag("--force", args->force, "Start over in --out, replacing a finished or unfinished run");
  cmd->add_flag("--wide", args->wide, "Print every defined column of the final head table (default: those that fit 120 characters)");
  cmd->callback([args] { run_train(*args); });
}

}  // namespace sinklab::apps
