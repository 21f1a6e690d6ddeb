#include "train/train_in_folder.h"

#include <sstream>
#include <stdexcept>

#include "config_loading/changed_overrides.h"
#include "config_loading/config_loader.h"
#include "config_loading/run_name.h"
#include "config_loading/utf8.h"
#include "core/io/file_write.h"
#include "core/text/shell_quote.h"
#include "data/corpus_fingerprint.h"
#include "run_files/run_folder.h"
#include "run_files/run_folder_lock.h"
#include "run_files/run_provenance.h"
#include "train/interrupt.h"
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
  if (a.name_with_overrides == nullptr) throw std::logic_error("train_in_folder: a fresh run without --name needs name_with_overrides");
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
  RunConfig config = load_run_config(a.config, overrides);  // validates before anything is written
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
    throw std::invalid_argument("--resume " + a.resume + " continues in its own folder " + r.dir.string() + "; leave out --out " + a.out);
  return r;
}

RunConfig resumed_config(const TrainRequest& a, const Resumption& r) {
  const fs::path own = r.dir / "config.yaml";
  if (!fs::exists(own)) throw std::invalid_argument("--resume " + a.resume + ": " + own.string() + " is missing, so this is not a sinklab run folder");
  const RunConfig config = load_run_config(own, {});
  if (flags_shape_config(a)) {
    TrainRequest from_flags = a;
    if (from_flags.config.empty()) from_flags.config = own.string();
    RunConfig flags_config = config_from_flags(from_flags, false);
    // A derived name is no part of what runs (and runs started before names were derived have another).
    if (!name_given(a)) flags_config.name = config.name;
    const std::string diff = first_difference(to_yaml(config), to_yaml(flags_config));
    if (!diff.empty())
      throw std::invalid_argument("--resume " + a.resume + ": the config or flags given differ from the run's own " + own.string() +
                                  " (" + diff + "); a resumed run keeps its config: leave them out");
  }
  return config;
}

void check_can_resume(const TrainRequest& a, const Resumption& r) {
  const std::string dir = r.dir.string();
  if (inspect_run_folder(r.dir) == RunFolderState::finished)
    throw std::invalid_argument("--resume: " + dir + " holds a finished run (summary.json); nothing to resume");
  if (!fs::exists(r.checkpoint))
    throw std::invalid_argument("--resume: " + r.checkpoint.string() +
                                " is missing: the run was stopped before its first checkpoint; start it over with `" +
                                suggested_command(a.program, {"train", "CONFIG", "--out", dir, "--force"}) + "`");
}

// A fresh run may not overwrite a run (or the user's own config file) without --force.
void check_can_start(const TrainRequest& a, const RunConfig& config, const fs::path& dir) {
  check_new_run_folder(dir, a.config, to_yaml(config), a.force,
                       "continue it with `" + suggested_command(a.program, {"train", "--resume", dir.string()}) +
                           "`, or pass --force to start over");
}

}  // namespace

std::string suggested_command(const std::string& program, const std::vector<std::string>& args) {
  std::vector<std::string> words{program};
  words.insert(words.end(), args.begin(), args.end());
  return shell_command(words);
}

TrainedRun train_in_folder(const TrainRequest& a) {
  const bool resuming = !a.resume.empty();
  if (!resuming && a.config.empty()) throw std::invalid_argument("train: give a CONFIG file, or --resume RUN_DIR");
  std::optional<Resumption> resumption;
  if (resuming) resumption = resumption_of(a);
  const RunConfig config = resuming ? resumed_config(a, *resumption) : config_from_flags(a, true);
  const fs::path dir = resuming             ? resumption->dir
                       : a.out.empty()      ? fs::path("runs") / (config.name + "-seed" + std::to_string(config.seed))
                                            : fs::path(a.out);
  // Everything a user can get wrong is checked before the folder is touched; then again under the lock.
  const auto check_folder = [&] {
    if (resuming) {
      check_can_resume(a, *resumption);
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
  options.on_log = a.on_log;
  options.exchange = a.exchange;
  if (resuming) {
    options.resume_from = resumption->checkpoint;
  } else {
    clear_run_files(dir);
    write_file_atomically(dir / "config.yaml", to_yaml(config));
    nlohmann::json info = provenance(a.command_line, config.threads, config.seed);
    if (a.exchange) info["mpi_ranks"] = a.exchange->ranks();
    if (auto corpus = corpus_fingerprint(config.task)) info["corpus"] = std::move(*corpus);
    write_provenance(dir, info);
  }
  const InterruptScope interrupts;
  if (a.before_training) a.before_training(config, dir, resuming ? resumption->checkpoint : fs::path());
  return {dir, trainer.run(options)};
}

}  // namespace sinklab
