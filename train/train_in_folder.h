#pragma once
// `sinklab train` minus its command line, shared by apps/train_command.cpp and sinklab.train
// (python/bindings/training.cpp): the config from a file and flags, the run folder's rules (a fresh run
// never overwrites one without --force; a resumed run keeps its own config.yaml), the lock, config.yaml
// and provenance, then the trainer, which Ctrl-C stops cleanly at a checkpoint (train/interrupt.h).
// Every message names the CLI's flags, so a Python user reads the same words as a terminal user.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "run_files/run_summary.h"

namespace sinklab {

struct RunConfig;
class ShardExchange;

// The default run name from the config's name and the overrides that change the file's values
// (sweep::name_with_overrides; train/ leaves run naming to sweep/).
using NameWithOverrides = std::string (*)(const std::string& base,
                                          const std::vector<std::pair<std::string, std::string>>& changed);

// The flags of `sinklab train`, as typed.
struct TrainRequest {
  std::string config;                  // CONFIG file; may be empty with resume
  std::vector<std::string> sets;       // --set KEY=VALUE, in order
  std::string out;                     // --out; empty: runs/<name>-seed<seed>
  std::string resume;                  // --resume RUN_DIR (or RUN_DIR/checkpoint.bin)
  std::optional<std::string> seed;     // --seed, checked by the loader like --set seed=N
  std::optional<std::string> threads;  // --threads, checked like --set threads=N
  std::optional<std::string> name;     // --name; default: the config's name and what the flags change
  bool quiet = false;
  bool force = false;
  bool skip_finished = false;  // --skip-finished: a folder holding a finished run of this config is no error
  std::string program = "sinklab";        // the first word of the commands messages suggest ("build/sinklab")
  std::vector<std::string> command_line;  // what started this, for provenance.json
  NameWithOverrides name_with_overrides = nullptr;  // needed for a fresh run without --name
  std::function<void(const MetricsRecord&)> on_log;  // TrainOptions::on_log
  ShardExchange* exchange = nullptr;                 // TrainOptions::exchange: rank 0 of `train --mpi`
  // Called once the config and the checkpoint (empty path: a fresh run) are checked, just before the
  // first step in run folder `dir`: `train --mpi` hands them to the other ranks.
  std::function<void(const RunConfig&, const std::filesystem::path& dir, const std::filesystem::path& checkpoint)>
      before_training;
};

struct TrainedRun {
  std::filesystem::path dir;
  RunSummary summary;  // outcome_of (train/trainer.h) says finished, interrupted or diverged
  bool skipped = false;  // skip_finished found the run finished already: nothing was trained, summary is empty
};

// Checks everything a user can get wrong before the folder is touched (std::invalid_argument,
// ConfigError, CheckpointError, RunFolderBusy...), then trains in the folder. A resume whose flags raise
// train.max_steps (and change nothing else) extends a finished run when its learning-rate schedule does
// not depend on max_steps (Trainer::resume): the result is bit-identical to a run
// trained for the new max_steps from the start. Signals stop the run at a
// checkpoint (summary.stop_reason "interrupted"; interrupt_signal() says which); the previous signal
// handlers are back when this returns or throws.
TrainedRun train_in_folder(const TrainRequest& request);

// A command for the user to paste: `program`, then `args`, every word quoted for a POSIX shell.
std::string suggested_command(const std::string& program, const std::vector<std::string>& args);

}  // namespace sinklab
