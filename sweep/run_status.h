#pragma once
// What `compare` says while its trainings go (on stderr, every few seconds): which runs are going, the
// step each has logged out of its train.max_steps and an estimate of the time left, and how many of the
// sweep's runs are finished. The step comes from the run's own metrics.jsonl, which train appends to
// every train.log_every steps.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sinklab::sweep {

// The "step" of the last complete line of RUN_DIR/metrics.jsonl; nothing when there is no such line yet
// (or it does not read as a JSON object with an integer step: a run is never failed for its log).
std::optional<long long> logged_step(const std::filesystem::path& run_dir);

// One running training as the status line shows it.
struct RunningRun {
  std::string id;
  std::optional<long long> step;        // last logged step; nothing before the first metrics line
  int max_steps = 0;                    // 0 = not known
  std::optional<double> seconds_left;   // nothing until its pace is known
};

// Seconds until `max_steps` at the pace seen between two observations (step_then at `then`, step_now at
// `now`); nothing when no step was made in between. An upper bound: a stop rule may end the run sooner.
std::optional<double> seconds_left(long long step_then, std::chrono::steady_clock::time_point then, long long step_now,
                                   std::chrono::steady_clock::time_point now, int max_steps);

// "3/8 finished; running: relu_seed=0 step 1200/5000 ETA 2m05s, soft_seed=1 starting"
std::string format_status_line(const std::vector<RunningRun>& running, std::size_t finished, std::size_t total);

}  // namespace sinklab::sweep
