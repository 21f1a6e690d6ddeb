#include "train/train_in_folder.h"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include "config_loading/changed_overrides.h"
#include "config_loading/config_loader.h"
#include "config_loading/run_name.h"
#include "config_loading/utf8.h"
#include "core/io/file_write.h"
#include "core/kernels/matmul_bf16.h"
#include "core/thread_contention.h"
#include "core/text/shell_quote.h"
#include "data/corpus_fingerprint.h"
#include "run_files/run_folder.h"
#include "run_files/run_folder_lock.h"
#include "run_files/checkpoint.h"
#include "run_files/run_provenance.h"
#include "train/interrupt.h"
#include "train/lr_schedule.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

bool flags_shape_config(const TrainRequest& a) {
  return !a.config.empty() || !a.sets.empty() || a.seed || a.threads || a.name;
}

// The run name given by the caller (--name or --set name=...), if any.
bool name_given(const TrainRequest& a) {
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
std::string derived_name(const TrainRequest& a, const RunConfig& config, const std::vector<std::string>& overrides) {
  if (a.name_with_overrides == nullptr)
    throw std::logic_error("train_in_folder: a fresh run without --name needs name_with_overrides");
  std::vector<std::pair<std::string, std::string>> parts;
  for (auto& kv : changed_overrides(a.config, overrides, config))
    if (kv.first != "seed") parts.push_back(std::move(kv));
  return a.name_with_overrides(config.name, parts);
}

// `derive_name` is false where the name does not matter (comparing a resumed run's config with the flags).
RunConfig config_from_flags(const TrainRequest& a, bool derive_name) {
  if (a.name) check_name_flag(*a.name);
  std::vector<std::string> overrides = a.sets;
  if (a.seed) overrides.push_back("seed=" + *a.seed);
  if (a.threads) overrides.push_back("threads=" + *a.threads);
  RunConfig config;
  try {
    config = load_run_config(a.config, overrides);  // validates before anything is written
  } catch (const ConfigError& e) {
    // --seed and --threads travel as overrides; a bad value is named as the user typed it.
    for (const auto& [flag, value] : {std::pair{"--seed", a.seed}, std::pair{"--threads", a.threads}})
      if (value && e.source() == "--set " + e.key() + "=" + *value && e.key() == std::string(flag).substr(2))
        throw ConfigError(std::string(flag) + " " + *value, 0, e.key(), e.detail());
    throw;
  }
  if (a.name) {
    config.name = *a.name;
  } else if (derive_name && !name_given(a)) {
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
  std::optional<int> extends_from;  // the run's own train.max_steps, when the flags raise it (an extension)
};

// --resume takes RUN_DIR or RUN_DIR/checkpoint.bin; the run's own config.yaml is the config.
Resumption resumption_of(const TrainRequest& a) {
  const fs::path given(a.resume);
  if (!fs::exists(given)) throw std::invalid_argument("--resume " + a.resume + ": no such run folder or checkpoint");
  Resumption r;
  r.dir = fs::is_directory(given) ? given : given.parent_path();
  if (r.dir.empty()) r.dir = ".";
  r.checkpoint = fs::is_directory(given) ? given / "checkpoint.bin" : given;
  if (a.force) throw std::invalid_argument("--resume continues a run and --force starts it over: pass one of them");
  if (!a.out.empty() && fs::weakly_canonical(a.out) != fs::weakly_canonical(r.dir))
    throw std::invalid_argument("--resume " + a.resume + " continues in its own folder " + r.dir.string() +
                                "; leave out --out " + a.out);
  return r;
}

// Refuses an extension (flags that raise train.max_steps from `run` to `extended`) that could not give
// the run trained for the new max_steps from the start.
void check_extension(const TrainRequest& a, const RunConfig& run, const RunConfig& extended) {
  const std::string where = "--resume " + a.resume + ": train.max_steps " + std::to_string(extended.train.max_steps);
  if (extended.train.max_steps < run.train.max_steps)
    throw std::invalid_argument(where + " is below the run's own " + std::to_string(run.train.max_steps) +
                                "; a resumed run's train.max_steps can only be raised");
  if (schedule_depends_on_max_steps(run.optimizer))
    throw std::invalid_argument(where + ": the run cannot be extended, because optimizer.schedule cosine decays the "
                                "learning rate to min_lr at train.max_steps, so the steps it took already would have "
                                "had other rates in a run of " + std::to_string(extended.train.max_steps) +
                                " steps; train that run from the start (--out another folder, or --force)");
}

RunConfig resumed_config(const TrainRequest& a, Resumption& r) {
  const fs::path own = r.dir / "config.yaml";
  if (!fs::exists(own))
    throw std::invalid_argument("--resume " + a.resume + ": " + own.string() +
                                " is missing, so this is not a sinklab run folder");
  const RunConfig config = load_run_config(own, {});
  if (flags_shape_config(a)) {
    TrainRequest from_flags = a;
    if (from_flags.config.empty()) from_flags.config = own.string();
    RunConfig flags_config = config_from_flags(from_flags, false);
    // A derived name is no part of what runs (and runs started before names were derived have another).
    if (!name_given(a)) flags_config.name = config.name;
    // Only train.max_steps changed: an extension (see train_in_folder.h).
    RunConfig same_length = flags_config;
    same_length.train.max_steps = config.train.max_steps;
    if (flags_config.train.max_steps != config.train.max_steps && to_yaml(same_length) == to_yaml(config)) {
      check_extension(a, config, flags_config);
      r.extends_from = config.train.max_steps;
      return flags_config;
    }
    const std::string diff = first_difference(to_yaml(config), to_yaml(flags_config));
    if (!diff.empty())
      throw std::invalid_argument("--resume " + a.resume + ": the config or flags given differ from the run's own " +
                                  own.string() + " (" + diff +
                                  "); a resumed run keeps its config (only train.max_steps may be raised): "
                                  "leave them out");
  }
  return config;
}

// A finished run resumes only to be extended, and only if it ended at its train.max_steps: one stopped by
// a rule or diverged would not train further with more steps allowed.
void check_can_extend_finished(const Resumption& r, const RunConfig& config) {
  const std::string dir = r.dir.string();
  if (!r.extends_from) {
    std::string hint = "nothing to resume";
    if (!schedule_depends_on_max_steps(config.optimizer))
      hint += "; to train it longer, raise train.max_steps: --set train.max_steps=N with N > " +
              std::to_string(config.train.max_steps);
    throw std::invalid_argument("--resume: " + dir + " holds a finished run (summary.json); " + hint);
  }
  if (!fs::exists(r.checkpoint)) return;  // said by check_can_resume
  const TrainingState state = read_training_state(r.checkpoint);
  if (state.stop != StopRule::none)
    throw std::invalid_argument("--resume: " + dir + " holds a run that met its stop rule (train.stop_max_abs_error or "
                                "train.stop_loss) at step " + std::to_string(state.step) +
                                "; a larger train.max_steps would not train it further");
  if (state.step != *r.extends_from)
    throw std::invalid_argument("--resume: " + dir + " holds a run that ended at step " + std::to_string(state.step) +
                                " before its train.max_steps " + std::to_string(*r.extends_from) +
                                " (it diverged: see its summary.json); it cannot be extended");
}

void check_can_resume(const TrainRequest& a, const Resumption& r, const RunConfig& config) {
  const std::string dir = r.dir.string();
  if (inspect_run_folder(r.dir) == RunFolderState::finished) {
    check_can_extend_finished(r, config);
  } else if (r.extends_from) {  // its checkpoint is of the shorter config at an earlier step: finish that first
    throw std::invalid_argument("--resume: " + dir + " holds an unfinished run; finish it first with `" +
                                suggested_command(a.program, {"train", "--resume", dir}) +
                                "`, then raise its train.max_steps");
  }
  if (!fs::exists(r.checkpoint))
    throw std::invalid_argument("--resume: " + r.checkpoint.string() +
                                " is missing: the run was stopped before its first checkpoint; start it over with `" +
                                suggested_command(a.program, {"train", "CONFIG", "--out", dir, "--force"}) + "`");
}

// --skip-finished: `dir` holds a finished run of exactly this config. A finished run of another config is
// refused here, naming the difference, rather than later with a message about --force alone.
bool finished_with_config(const fs::path& dir, const RunConfig& config) {
  if (inspect_run_folder(dir) != RunFolderState::finished) return false;
  const RunConfig done = load_run_config(dir / "config.yaml", {}, std::nullopt);
  const std::string diff = first_difference(to_yaml(done), to_yaml(config));
  if (!diff.empty())
    throw std::invalid_argument("--skip-finished: " + dir.string() + " holds a finished run of another config (" +
                                diff + "); pass --force to replace it, or --out another folder");
  return true;
}

// Whether the config file or the flags set `threads`; a run without one gets the loader's default.
bool threads_given(const TrainRequest& a) {
  if (a.threads) return true;
  for (const auto& o : a.sets)
    if (split_override(o).first == "threads") return true;
  return !a.config.empty() && YAML::LoadFile(a.config)["threads"].IsDefined();  // the loader read it already
}

// What the run computes with, said once: a warning when its threads will compete for the cores (even
// with --quiet: it explains a run many times slower than it should be); without --quiet, where a fresh
// run's thread count came from when the config does not set one. Rank 0 only (the others print nothing).
void say_thread_choice(const TrainRequest& a, const RunConfig& config) {
  const std::optional<MachineLoad> load = machine_load();
  if (load) {
    const std::string warning = thread_contention_warning(config.threads, *load);
    if (!warning.empty()) std::fprintf(stderr, "%s\n", warning.c_str());
  }
  if (a.quiet || !a.resume.empty() || threads_given(a)) return;
  std::fprintf(stderr,
               "sinklab: threads %d (the default: the config sets no `threads`) of %d core%s; results are "
               "bit-identical only at the same thread count; --threads N or `threads: N` uses more\n",
               config.threads, load ? load->cores : 1, load && load->cores == 1 ? "" : "s");
}

// train.precision: bf16 on a CPU without bf16 instructions runs emulated (the same rounding and sums, slower
// than float32): said once at start-up, so that nobody takes it for the fast path.
void say_precision_note(const RunConfig& config) {
  if (config.train.precision != MatmulPrecision::bf16) return;
  const kernels::Bf16MatmulSupport support = kernels::bf16_matmul_support();
  if (support.native) return;
  std::fprintf(stderr,
               "sinklab: train.precision: bf16 runs emulated here (%s): this CPU, or SINKLAB_MAX_ISA, gives oneDNN "
               "no bf16 instructions (AVX512_BF16 or AMX), so products are rounded to bf16 and computed in float32, "
               "slower than train.precision: float32\n",
               support.implementation.c_str());
}

// The precision of the run's training matmuls, and for bf16 the kernel that runs them (run.json).
nlohmann::json precision_record(const RunConfig& config) {
  nlohmann::json record = {{"train_matmuls", std::string(to_string(config.train.precision))},
                           {"evaluation", "float32"}};
  if (config.train.precision == MatmulPrecision::bf16) {
    const kernels::Bf16MatmulSupport support = kernels::bf16_matmul_support();
    record["bf16_native"] = support.native;
    record["bf16_implementation"] = support.implementation;
  }
  return record;
}

// A fresh run may not overwrite a run (or the user's own config file) without --force.
void check_can_start(const TrainRequest& a, const RunConfig& config, const fs::path& dir) {
  try {
    check_new_run_folder(dir, a.config, to_yaml(config), a.force,
                         "continue it with `" + suggested_command(a.program, {"train", "--resume", dir.string()}) +
                             "`, or pass --force to start over");
  } catch (const std::invalid_argument& e) {
    if (inspect_run_folder(dir) != RunFolderState::finished) throw;
    throw std::invalid_argument(std::string(e.what()) + ", or --skip-finished to keep a finished run of this config");
  }
}

}  // namespace

std::string suggested_command(const std::string& program, const std::vector<std::string>& args) {
  std::vector<std::string> words{program};
  words.insert(words.end(), args.begin(), args.end());
  return shell_command(words);
}

TrainedRun train_in_folder(const TrainRequest& a) {
  const auto started = std::chrono::steady_clock::now();  // the setup phase of summary.json's time_seconds
  const bool resuming = !a.resume.empty();
  if (!resuming && a.config.empty()) throw std::invalid_argument("train: give a CONFIG file, or --resume RUN_DIR");
  if (a.force && a.skip_finished)
    throw std::invalid_argument("--skip-finished keeps a finished run and --force replaces it: pass one of them");
  std::optional<Resumption> resumption;
  if (resuming) resumption = resumption_of(a);
  const RunConfig config = resuming ? resumed_config(a, *resumption) : config_from_flags(a, true);
  const fs::path dir = resuming             ? resumption->dir
                       : a.out.empty()      ? fs::path("runs") / (config.name + "-seed" + std::to_string(config.seed))
                                            : fs::path(a.out);
  const bool extending = resuming && resumption->extends_from;
  if (a.skip_finished && !extending && finished_with_config(dir, config)) return {dir, {}, true};
  // Everything a user can get wrong is checked before the folder is touched; then again under the lock.
  const auto check_folder = [&] {
    if (resuming) {
      check_can_resume(a, *resumption, config);
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
  remove_run_file_temporaries(dir);  // of writers killed earlier: with the lock held, none is alive
  TrainOptions options;
  options.run_dir = dir;
  options.quiet = a.quiet;
  options.on_log = a.on_log;
  options.exchange = a.exchange;
  options.started = started;
  if (resuming) {
    options.resume_from = resumption->checkpoint;
    const std::string note =
        record_resumption(dir, trainer.resumed_step(), provenance(a.command_line, config.threads, config.seed));
    if (!note.empty()) std::fprintf(stderr, "sinklab: %s\n", note.c_str());
    if (extending) {
      // No longer finished (a kill from here on leaves a run that `--resume` continues), and its config
      // is the extended one: the checkpoint of the shorter run still resumes under it (Trainer::resume).
      fs::remove(dir / "summary.json");
      write_file_atomically(dir / "config.yaml", to_yaml(config));
    }
  } else {
    clear_run_files(dir);
    write_file_atomically(dir / "config.yaml", to_yaml(config));
    nlohmann::json info = provenance(a.command_line, config.threads, config.seed);
    if (a.exchange) info["mpi_ranks"] = a.exchange->ranks();
    if (auto corpus = corpus_fingerprint(config.task)) info["corpus"] = std::move(*corpus);
    info["precision"] = precision_record(config);
    write_provenance(dir, info);
  }
  say_thread_choice(a, config);
  say_precision_note(config);
  const InterruptScope interrupts;
  if (a.before_training) a.before_training(config, dir, resuming ? resumption->checkpoint : fs::path());
  return {dir, trainer.run(options)};
}

}  // namespace sinklab
