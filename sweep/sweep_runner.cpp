#include "sweep/sweep_runner.h"

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "sweep/stop_signals.h"
#include "sweep/sweep_error.h"

namespace sinklab::sweep {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::optional<nlohmann::json> read_summary(const fs::path& dir) {
  std::ifstream in(dir / "summary.json");
  if (!in) return std::nullopt;
  auto json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  return json;
}

// The last `count` lines of a log; only its tail is read, a crashed run's log can be large.
std::string tail_lines(const fs::path& file, std::size_t count) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff window = std::min<std::streamoff>(size, 64 * 1024);
  in.seekg(size - window);
  std::string text(static_cast<std::size_t>(window), '\0');
  in.read(text.data(), window);
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

// "[3/30] "; snprintf because GCC 12 warns falsely (-Wrestrict) on "[" + std::to_string(...).
std::string counter_text(std::size_t done, std::size_t total) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "[%zu/%zu] ", done, total);
  return buffer;
}

std::string run_title(const PlannedRun& run) {
  return run.label + (run.seed ? " seed=" + std::to_string(*run.seed) : "");
}

// Step count for the progress line; summaries from the trainer carry it as "steps".
std::string steps_text(const nlohmann::json& summary) {
  for (const char* key : {"steps", "step"}) {
    auto it = summary.find(key);
    if (it != summary.end() && it->is_number_integer()) return ", steps " + std::to_string(it->get<long long>());
  }
  return "";
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

// A folder without a finished summary is left over from an interrupted or failed run: start clean.
void clear_run_dir(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) throw SweepError("cannot clear unfinished run folder '" + dir.string() + "': " + ec.message());
  fs::create_directories(dir, ec);
  if (ec) throw SweepError("cannot create run folder '" + dir.string() + "': " + ec.message());
}

// `sinklab train CONFIG --set k=v ... --out DIR [--threads 1]`, logging to DIR/train.log.
ChildSpec train_command(const fs::path& executable, const PlannedRun& run, const fs::path& dir, int jobs) {
  ChildSpec spec;
  spec.executable = executable;
  spec.args = {"train", run.config.string()};
  for (const auto& o : run.overrides) {
    spec.args.push_back("--set");
    spec.args.push_back(o.key + "=" + o.value);
  }
  spec.args.push_back("--out");
  spec.args.push_back(dir.string());
  if (jobs > 1) {  // children share the cores: one thread each, OpenMP included
    spec.args.push_back("--threads");
    spec.args.push_back("1");
    spec.env.emplace_back("OMP_NUM_THREADS", "1");
  }
  spec.log_file = dir / "train.log";
  return spec;
}

struct Running {
  std::size_t index;
  ChildProcess child;
  Clock::time_point start;
};

}  // namespace

fs::path run_dir(const fs::path& out_dir, const PlannedRun& run) { return out_dir / "runs" / run.id; }

bool run_finished(const fs::path& dir) { return read_summary(dir).has_value(); }

int default_jobs() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return std::max(1u, std::thread::hardware_concurrency());
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
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const fs::path dir = run_dir(out_dir, runs[i]);
    if (run_finished(dir)) {
      outcome.skipped.push_back(runs[i].id);
    } else {
      pending.push_back(i);
    }
  }
  const std::size_t total = runs.size();
  if (!outcome.skipped.empty())
    say("resume: " + std::to_string(outcome.skipped.size()) + " of " + std::to_string(total) +
        " runs already finished, skipping them");

  std::size_t finished = outcome.skipped.size();
  const StopSignals stop;
  std::vector<Running> running;  // destroying it terminates leftover children if we throw
  while (!pending.empty() || !running.empty()) {
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
      clear_run_dir(dir);
      running.push_back(Running{pending.front(), ChildProcess::spawn(train_command(executable, run, dir, jobs)),
                                Clock::now()});
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
      const fs::path dir = run_dir(out_dir, run);
      const std::string elapsed = seconds_text(Clock::now() - it->start);
      const std::string counter = counter_text(++finished, total);
      const auto summary = status->ok() ? read_summary(dir) : std::nullopt;
      if (summary) {
        outcome.completed.push_back(run.id);
        say(counter + run_title(run) + " done in " + elapsed + steps_text(*summary));
      } else {
        RunFailure failure{run.id, run_title(run), *status,
                           status->ok() ? "exit 0 but no readable summary.json" : status->describe(),
                           tail_lines(dir / "train.log", options.log_tail_lines), dir / "train.log"};
        say(counter + run_title(run) + " FAILED (" + failure.reason + ") after " + elapsed);
        outcome.failed.push_back(std::move(failure));
      }
      it = running.erase(it);
    }
    if (!any_done && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return outcome;
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
