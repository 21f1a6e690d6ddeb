// sinklab schedule SWEEP.yaml --times DIR [--fit DIR] [--ranks 8,64,512]: the schedule `compare --mpi`
// would follow on N ranks, simulated from measured run times (docs/cluster.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "config_loading/config_loader.h"
#include "run_files/run_provenance.h"
#include "run_files/run_summary.h"
#include "sweep/compare_sweep.h"
#include "sweep/run_cost.h"
#include "sweep/schedule_simulation.h"
#include "sweep/sweep_error.h"
#include "sweep/sweep_validation.h"

namespace sinklab::apps {
namespace {

namespace fs = std::filesystem;

struct ScheduleArgs {
  std::string sweep_file;
  std::string times;
  std::string fit;
  std::vector<int> ranks{8, 64, 512};
};

std::string seconds_text(double s) {
  char buffer[48];
  if (s >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%.2f h", s / 3600);
  } else if (s >= 60) {
    std::snprintf(buffer, sizeof buffer, "%.1f min", s / 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f s", s);
  }
  return buffer;
}

// A finished run of a sweep folder: its summary's wall time and the steps that time covers. A run trained
// in pieces (`sinklab train --resume`) has only its last piece timed: the steps from that piece's start
// (run.json's "resumed") to the end. A run whose last piece timed no step (resumed at its last step, so only
// evaluated) gives no time: finished_run() leaves it out, and it is estimated like an unfinished one.
struct FinishedRun {
  RunSummary summary;
  int64_t timed_steps = 0;  // > 0
  bool in_pieces() const { return timed_steps < summary.steps; }
  // The run's time, or for one in pieces its last piece's time per step over all its steps.
  double seconds() const {
    return in_pieces() ? summary.wall_seconds * static_cast<double>(summary.steps) / static_cast<double>(timed_steps)
                       : summary.wall_seconds;
  }
};

std::optional<FinishedRun> finished_run(const fs::path& run_dir) {
  std::error_code ec;
  if (!fs::is_regular_file(run_dir / "summary.json", ec)) return std::nullopt;
  FinishedRun run{read_run_summary(run_dir / "summary.json")};
  const fs::path provenance = run_dir / "run.json";
  const int64_t start =
      fs::is_regular_file(provenance, ec) ? last_piece_start(read_provenance(provenance), provenance) : 0;
  run.timed_steps = run.summary.steps - start;
  if (run.timed_steps <= 0) return std::nullopt;
  return run;
}

// Seconds per multiply-add of a training step (run_cost.h), from every finished run under DIR/runs:
// the sum of their wall times over the sum of step_cost x steps done.
struct TimeModel {
  double seconds_per_unit = 0.0;
  int runs = 0;
};

TimeModel fit_time_model(const fs::path& sweep_dir) {
  TimeModel model;
  double seconds = 0.0, units = 0.0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(sweep_dir / "runs", ec)) {
    const auto run = finished_run(entry.path());
    if (!run || !fs::is_regular_file(entry.path() / "config.yaml", ec)) continue;
    const RunConfig config = load_run_config(entry.path() / "config.yaml", {}, std::nullopt);
    seconds += run->summary.wall_seconds;
    units += sweep::step_cost(config) * static_cast<double>(run->timed_steps);
    ++model.runs;
  }
  if (units > 0) model.seconds_per_unit = seconds / units;
  return model;
}

void run_schedule(const ScheduleArgs& a) {
  sweep::CompareOptions options;
  options.sweep_file = a.sweep_file;
  options.out_dir = a.times;
  options.vocab = registered_vocabulary();
  std::ostringstream header;
  const sweep::PlannedSweep plan = sweep::plan_sweep(options, header);
  const fs::path fit_dir = a.fit.empty() ? fs::path(a.times) : fs::path(a.fit);

  std::vector<double> seconds(plan.runs.size(), -1.0), costs;
  int measured = 0, in_pieces = 0;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const RunConfig config = load_run_config(plan.runs[i].config, sweep::override_strings(plan.runs[i]), options.vocab);
    costs.push_back(sweep::expected_run_cost(config));
    if (const auto run = finished_run(sweep::run_dir(plan.out_dir, plan.runs[i]))) {
      seconds[i] = run->seconds();
      ++measured;
      in_pieces += run->in_pieces();
    }
  }
  const int estimated = static_cast<int>(plan.runs.size()) - measured;
  TimeModel model;
  if (estimated > 0) {
    model = fit_time_model(fit_dir);
    if (model.runs == 0)
      throw sweep::SweepError(std::to_string(estimated) + " runs of " + a.sweep_file + " have no finished run in " +
                              a.times + "/runs and " + fit_dir.string() +
                              "/runs has no finished run to fit a time per step from (--fit DIR)");
    for (std::size_t i = 0; i < plan.runs.size(); ++i)
      if (seconds[i] < 0) seconds[i] = model.seconds_per_unit * costs[i];
  }

  std::printf("schedule of sweep %s: %zu runs, %d measured (wall_seconds of %s/runs/*/summary.json), %d estimated\n",
              plan.spec.name.c_str(), plan.runs.size(), measured, a.times.c_str(), estimated);
  if (in_pieces > 0)
    std::printf(
        "%d of the measured runs were trained in pieces (run.json \"resumed\"): their wall_seconds times the "
        "last piece only, so their time is that piece's time per step x their steps\n",
        in_pieces);
  if (estimated > 0)
    std::printf("estimates: %.3g s per multiply-add of a step (fitted on the %d finished runs in %s) x step cost x "
                "train.max_steps (an upper bound: a stop rule may end a run earlier)\n",
                model.seconds_per_unit, model.runs, fit_dir.string().c_str());
  std::printf(
      "order: longest expected first (step cost x max_steps), as compare --mpi hands runs out; one worker = one "
      "rank training one run on one core; rank 0 only coordinates\n\n");
  std::printf(
      "| ranks | workers | total run time | ideal = total / workers | makespan | makespan / ideal | longest run |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
  const std::vector<std::size_t> order = sweep::longest_first(costs);
  for (const int ranks : a.ranks) {
    const sweep::SimulatedSchedule s = sweep::simulate_schedule(seconds, order, ranks - 1);
    std::printf("| %d | %d | %s | %s | %s | %.2f | %s |\n", ranks, s.workers, seconds_text(s.total_seconds).c_str(),
                seconds_text(s.ideal_seconds).c_str(), seconds_text(s.makespan_seconds).c_str(),
                s.ideal_seconds > 0 ? s.makespan_seconds / s.ideal_seconds : 1.0,
                seconds_text(s.longest_seconds).c_str());
  }
}

}  // namespace

void add_schedule_command(CLI::App& app) {
  auto args = std::make_shared<ScheduleArgs>();
  CLI::App* cmd = app.add_subcommand(
      "schedule", "Simulate the schedule of `compare --mpi` on N ranks from measured run times (docs/cluster.md)");
  cmd->add_option("sweep", args->sweep_file, "Sweep YAML file")->required();
  cmd->add_option("--times", args->times,
                  "The sweep's output folder: its finished runs give measured times (summary.json wall_seconds)")
      ->required();
  cmd->add_option(
      "--fit", args->fit,
      "A sweep output folder whose finished runs fit the time per step of the other runs (default: --times)");
  cmd->add_option("--ranks", args->ranks, "MPI ranks to simulate (rank 0 coordinates, the others train)")
      ->delimiter(',')
      ->check(CLI::Range(2, 1 << 20));
  cmd->callback([args] {
    try {
      run_schedule(*args);
    } catch (const sweep::SweepError& e) {  // the sweep file or the folders: one message, exit 2
      std::fprintf(stderr, "sinklab: error: %s\n", e.what());
      throw CLI::RuntimeError(2);
    }
  });
}

}  // namespace sinklab::apps
