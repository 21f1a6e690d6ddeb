#include "sweep/sweep_runner.h"

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cstdio>
#include <deque>
#include <iostream>
#include <sstream>
#include <thread>
#include <utility>

#include "core/io/file_read.h"
#include "run_files/run_summary.h"
#include "sweep/run_status.h"
#include "sweep/stop_signals.h"
#include "sweep/sweep_error.h"
#include "sweep/train_arguments.h"

namespace sinklab::sweep {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The run's summary.json through its one reader (run_files/run_summary.h); nothing when there is none or
// it does not read, and then `why` (when given) says what is wrong with it.
std::optional<RunSummary> read_summary(const fs::path& dir, std::string* why = nullptr) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(dir / "summary.json", ec))) return std::nullopt;
  try {
    return read_run_summary(dir / "summary.json");
  } catch (const RunFileError& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
}

std::string non_finite_text(const RunSummary& summary) {
  return summary.non_finite.empty() ? "non-finite values" : summary.non_finite;
}

// The last `count` lines of a log; only its tail is read, a crashed run's log can be large.
std::string tail_lines(const fs::path& file, std::size_t count) {
  std::string text;
  try {  // bounded: a log replaced by a FIFO or a device must not hang the sweep
    const uint64_t size = regular_file_size(file, "train log");
    const uint64_t window = std::min<uint64_t>(size, 64 * 1024);
    text = read_file_range(file, size - window, window, "train log");
  } catch (const FileReadError&) {
    return "";
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  std::size_t start = text.size();
  for (std::size_t lines = 0; start > 0 && lines < count;) {
    --start;
    if (text[start] == '\n' && ++lines == count) {
      ++start;
      break;
    }
  }
  return text.substr(start);
}

std::string seconds_text(Clock::duration d) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f s", std::chrono::duration<double>(d).count());
  return buffer;
}

std::string run_title(const PlannedRun& run) {
  return run.label + (run.seed ? ", seed=" + std::to_string(*run.seed) : "");  // same list form as the label
}

// Prepares the run folder and builds `sinklab train ...`, logging to DIR/train.log: a resumed run
// keeps its folder (checkpoint, metrics so far) and appends to its log.
ChildSpec train_command(const fs::path& executable, const PlannedRun& run, const fs::path& dir, int jobs,
                        RunStart start) {
  prepare_run_folder(dir, start);
  ChildSpec spec;
  spec.executable = executable;
  spec.args = train_arguments(run, dir, jobs, start);
  if (jobs > 1) spec.env.emplace_back("OMP_NUM_THREADS", "1");  // OpenMP included in "one thread each"
  spec.log_file = dir / "train.log";
  spec.append_log = start == RunStart::resume;
  return spec;
}

struct Running {
  std::size_t index;
  ChildProcess child;
  Clock::time_point start;
  bool resumed;
  std::optional<std::pair<long long, Clock::time_point>> first_step;  // first logged step seen, for the ETA
};

// The status line of the running children, from what their run folders have logged so far.
std::string status_line(std::vector<Running>& running, const std::vector<PlannedRun>& runs, const fs::path& out_dir,
                        std::size_t finished, std::size_t total) {
  const Clock::time_point now = Clock::now();
  std::vector<RunningRun> shown;
  for (Running& r : running) {
    const PlannedRun& run = runs[r.index];
    RunningRun s{run.id, logged_step(run_dir(out_dir, run)), run.max_steps, std::nullopt};
    if (s.step && !r.first_step) r.first_step = std::make_pair(*s.step, now);
    if (s.step) s.seconds_left = seconds_left(r.first_step->first, r.first_step->second, *s.step, now, run.max_steps);
    shown.push_back(std::move(s));
  }
  return format_status_line(shown, finished, total);
}

}  // namespace

std::vector<QuarantinedFile> quarantine_damaged_run_files(const fs::path& dir, const std::string& run_id,
                                                          const fs::path& quarantine) {
  std::vector<QuarantinedFile> moved;
  try {
    std::error_code ec;
    std::string why;
    if (fs::exists(fs::symlink_status(dir / "summary.json", ec)) && !read_summary(dir, &why))
      moved.push_back({run_id, "summary.json does not read: " + why,
                       move_to_quarantine(dir / "summary.json", run_id, quarantine)});
    if (auto checkpoint = quarantine_damaged_checkpoint(dir, run_id, quarantine))
      moved.push_back(std::move(*checkpoint));
  } catch (const std::runtime_error& e) {
    throw SweepError(e.what());
  }
  return moved;
}

std::string foreign_summary(const fs::path& dir, const PlannedRun& run) {
  const auto summary = read_summary(dir);
  if (!summary || !run.seed) return "";  // no seed planned: the summary says which it was (as in the report)
  if (*run.seed >= 0 && summary->seed == static_cast<uint64_t>(*run.seed)) return "";
  return "summary.json names seed " + std::to_string(summary->seed) + ", but the sweep planned seed " +
         std::to_string(*run.seed) + " for " + run.id;
}

std::vector<QuarantinedFile> quarantine_foreign_run_files(const fs::path& dir, const PlannedRun& run,
                                                          const fs::path& quarantine) {
  std::string damage = foreign_summary(dir, run);
  if (damage.empty()) return {};
  damage += " (a run folder copied or linked from another run)";
  std::vector<QuarantinedFile> moved;
  try {
    std::error_code ec;
    if (fs::is_symlink(dir, ec)) {  // moving files inside it would take them from the run it points to
      moved.push_back({run.id, damage, move_to_quarantine(dir, run.id, quarantine)});
      return moved;
    }
    moved.push_back({run.id, damage, move_to_quarantine(dir / "summary.json", run.id, quarantine)});
    if (fs::exists(fs::symlink_status(dir / "checkpoint.bin", ec)))  // the other run's: --resume would refuse it
      moved.push_back({run.id, "checkpoint.bin of that other run",
                       move_to_quarantine(dir / "checkpoint.bin", run.id, quarantine)});
  } catch (const std::runtime_error& e) {
    throw SweepError(e.what());
  }
  return moved;
}

void record_quarantine(const PlannedRun& run, QuarantinedFile moved, SweepOutcome& outcome,
                       const std::function<void(const std::string&)>& say) {
  say("note: " + run.id + " (" + run_title(run) + "): damaged run file (" + moved.damage + ") moved to " +
      moved.moved_to.string() + "; the run goes on without it");
  outcome.quarantined.push_back(std::move(moved));
}

// "[3/30] "; snprintf because GCC 12 warns falsely (-Wrestrict) on "[" + std::to_string(...).
std::string counter_text(std::size_t done, std::size_t total) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "[%zu/%zu] ", done, total);
  return buffer;
}

fs::path resolve_executable(fs::path executable) {
  std::error_code ec;
  if (executable.empty()) executable = fs::read_symlink("/proc/self/exe", ec);
  if (executable.empty() || !fs::is_regular_file(executable, ec))
    throw SweepError("sinklab executable '" + executable.string() + "' not found");
  if (access(executable.c_str(), X_OK) != 0)
    throw SweepError("sinklab executable '" + executable.string() + "' is not executable");
  return executable;
}

void prepare_run_folder(const fs::path& dir, RunStart start) {
  // Leftovers without a checkpoint have nothing to continue from: start clean (train gets --force too).
  std::error_code ec;
  if (start == RunStart::start_over) {
    fs::remove_all(dir, ec);
    if (ec) throw SweepError("cannot clear unfinished run folder '" + dir.string() + "': " + ec.message());
  }
  fs::create_directories(dir, ec);
  if (ec) throw SweepError("cannot create run folder '" + dir.string() + "': " + ec.message());
}

fs::path run_dir(const fs::path& out_dir, const PlannedRun& run) { return out_dir / "runs" / run.id; }

bool run_finished(const fs::path& dir) { return read_summary(dir).has_value(); }

bool run_finished(const fs::path& dir, const PlannedRun& run) {
  return run_finished(dir) && foreign_summary(dir, run).empty();
}

int default_jobs() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return std::max(1u, std::thread::hardware_concurrency());
}

std::vector<std::size_t> unfinished_runs(const std::vector<PlannedRun>& runs, const fs::path& out_dir,
                                         SweepOutcome& outcome, const std::function<void(const std::string&)>& say) {
  std::vector<std::size_t> pending;
  std::vector<std::pair<std::size_t, QuarantinedFile>> moved;  // said after the "resume:" line
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const fs::path dir = run_dir(out_dir, runs[i]);
    for (QuarantinedFile& m : quarantine_foreign_run_files(dir, runs[i], quarantine_dir(out_dir)))
      moved.emplace_back(i, std::move(m));
    if (const auto summary = read_summary(dir)) {
      outcome.skipped.push_back(runs[i].id);
      if (summary->diverged()) outcome.skipped_diverged.push_back(runs[i].id);
      continue;
    }
    // Here, not only where the run starts: `compare --mpi` without a shared filesystem trains it elsewhere,
    // and the damage of this folder must still be moved aside and counted.
    for (QuarantinedFile& m : quarantine_damaged_run_files(dir, runs[i].id, quarantine_dir(out_dir)))
      moved.emplace_back(i, std::move(m));
    pending.push_back(i);
  }
  const std::size_t total = runs.size();
  if (!outcome.skipped.empty())
    say("resume: " + std::to_string(outcome.skipped.size()) + " of " + std::to_string(total) +
        " runs already finished" +
        (outcome.skipped_diverged.empty() ? ""
                                          : " (" + std::to_string(outcome.skipped_diverged.size()) + " diverged)") +
        ", skipping them");
  for (auto& [i, m] : moved) record_quarantine(runs[i], std::move(m), outcome, say);
  return pending;
}

void record_run_end(const PlannedRun& run, const fs::path& dir, const ExitStatus& status,
                    std::chrono::steady_clock::duration took, bool resumed, const std::string& counter,
                    std::size_t log_tail_lines, SweepOutcome& outcome,
                    const std::function<void(const std::string&)>& say, const std::string& failure_reason) {
  const std::string elapsed = seconds_text(took);
  const bool exit_diverged = !status.signaled && status.code == kTrainExitDiverged;
  auto summary = failure_reason.empty() && (status.ok() || exit_diverged) ? read_summary(dir) : std::nullopt;
  // A summary of another seed would be skipped by the next compare and listed as failed by the report.
  const std::string foreign = summary ? foreign_summary(dir, run) : "";
  if (!foreign.empty()) summary.reset();
  const std::string resumed_text = resumed ? ", resumed from its checkpoint" : "";
  if (summary && summary->diverged()) {  // finished: rerunning the same config diverges again
    outcome.diverged.push_back(run.id);
    say(counter + run_title(run) + " diverged (" + non_finite_text(*summary) + ") after " + elapsed + resumed_text);
  } else if (summary && status.ok()) {
    outcome.completed.push_back(run.id);
    say(counter + run_title(run) + " done in " + elapsed + ", steps " + std::to_string(summary->steps) + resumed_text);
  } else {
    const std::string reason = !failure_reason.empty() ? failure_reason
                               : !foreign.empty()      ? status.describe() + " but its " + foreign
                               : status.ok()           ? "exit 0 but no readable summary.json"
                               : exit_diverged && !summary
                                   ? status.describe() + " (diverged) but no readable summary.json"
                               : exit_diverged ? status.describe() + " (diverged) but summary.json says it did not"
                                               : status.describe();
    RunFailure failure{run.id, run_title(run), status, reason, tail_lines(dir / "train.log", log_tail_lines),
                       dir / "train.log"};
    say(counter + run_title(run) + " FAILED (" + failure.reason + ") after " + elapsed);
    outcome.failed.push_back(std::move(failure));
  }
}

SweepOutcome run_sweep(const std::vector<PlannedRun>& runs, const fs::path& out_dir, const RunnerOptions& options) {
  auto say = [&](const std::string& line) {
    if (options.progress) {
      options.progress(line);
    } else {
      std::cout << line << std::endl;
    }
  };
  const int jobs = options.jobs > 0 ? options.jobs : default_jobs();
  const fs::path executable = resolve_executable(options.executable);

  SweepOutcome outcome;
  std::deque<std::size_t> pending;
  for (const std::size_t i : unfinished_runs(runs, out_dir, outcome, say)) pending.push_back(i);
  const std::size_t total = runs.size();

  std::size_t finished = outcome.skipped.size();
  const StopSignals stop;
  std::vector<Running> running;  // destroying it terminates leftover children if we throw
  Clock::time_point next_status = Clock::now() + options.status_interval;
  while (!pending.empty() || !running.empty()) {
    if (options.status && !running.empty() && Clock::now() >= next_status) {
      options.status(status_line(running, runs, out_dir, finished, total));
      next_status = Clock::now() + options.status_interval;
    }
    if (const int sig = stop.received()) {
      const std::size_t stopped = running.size();
      running.clear();  // SIGTERM and reap each child
      throw SweepInterrupted(sig, std::string("interrupted (") + strsignal(sig) + "): stopped " +
                                         std::to_string(stopped) + " running, " + std::to_string(finished) + " of " +
                                         std::to_string(total) +
                                         " finished; run the same command again to resume");
    }
    while (static_cast<int>(running.size()) < jobs && !pending.empty()) {
      const PlannedRun& run = runs[pending.front()];
      const fs::path dir = run_dir(out_dir, run);
      for (QuarantinedFile& moved : quarantine_damaged_run_files(dir, run.id, quarantine_dir(out_dir)))
        record_quarantine(run, std::move(moved), outcome, say);
      const RunStart start = choose_run_start(dir);
      running.push_back(Running{pending.front(),
                                ChildProcess::spawn(train_command(executable, run, dir, jobs, start)), Clock::now(),
                                start == RunStart::resume, std::nullopt});
      pending.pop_front();
      outcome.max_parallel = std::max(outcome.max_parallel, static_cast<int>(running.size()));
    }

    bool any_done = false;
    for (auto it = running.begin(); it != running.end();) {
      const auto status = it->child.poll();
      if (!status) {
        ++it;
        continue;
      }
      any_done = true;
      if (stop.received()) {  // probably killed by the same Ctrl-C: not a failure of its own
        it = running.erase(it);
        continue;
      }
      const PlannedRun& run = runs[it->index];
      record_run_end(run, run_dir(out_dir, run), *status, Clock::now() - it->start, it->resumed,
                     counter_text(++finished, total), options.log_tail_lines, outcome, say);
      it = running.erase(it);
    }
    if (!any_done && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return outcome;
}

std::string format_final_count(const SweepOutcome& outcome) {
  const std::size_t finished = outcome.skipped.size() + outcome.completed.size() + outcome.diverged.size();
  const std::size_t diverged = outcome.skipped_diverged.size() + outcome.diverged.size();
  const std::size_t total = finished + outcome.failed.size();
  const std::size_t moved = outcome.quarantined.size();
  return "finished " + std::to_string(finished) + " of " + std::to_string(total) + " runs (" +
         std::to_string(diverged) + " diverged), " + std::to_string(outcome.failed.size()) + " failed" +
         (moved == 0 ? "" : ", " + std::to_string(moved) + (moved == 1 ? " damaged run file" : " damaged run files") +
                                " moved aside");
}

std::string format_quarantine_report(const std::vector<QuarantinedFile>& moved) {
  if (moved.empty()) return "";
  std::ostringstream out;
  out << moved.size() << (moved.size() == 1 ? " damaged run file was" : " damaged run files were")
      << " moved aside; their runs went on without them:\n";
  for (const auto& m : moved) out << "- " << m.run_id << ": " << m.damage << "\n  now: " << m.moved_to.string() << "\n";
  return out.str();
}

std::string format_failure_report(const std::vector<RunFailure>& failures) {
  if (failures.empty()) return "";
  std::ostringstream out;
  out << failures.size() << (failures.size() == 1 ? " run" : " runs") << " failed:\n";
  for (const auto& f : failures) {
    out << "\n- " << f.id << " (" << f.label << "): " << f.reason << "\n  log: " << f.log.string() << "\n";
    if (f.log_tail.empty()) {
      out << "  (the log is empty)\n";
      continue;
    }
    std::istringstream lines(f.log_tail);
    for (std::string line; std::getline(lines, line);) out << "  | " << line << "\n";
  }
  return out.str();
}

}  // namespace sinklab::sweep
