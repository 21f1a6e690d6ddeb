#include "cluster/mpi_worker.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <thread>

#include "cluster/mpi_channel.h"
#include "cluster/run_folder_transfer.h"
#include "cluster/run_messages.h"
#include "sweep/child_process.h"
#include "sweep/stop_signals.h"
#include "sweep/sweep_error.h"
#include "sweep/sweep_runner.h"
#include "sweep/train_arguments.h"

namespace sinklab::cluster {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

fs::path scratch_root(const ClusterOptions& cluster) {
  if (!cluster.scratch.empty()) return cluster.scratch;
  const char* tmp = std::getenv("TMPDIR");
  return fs::path(tmp && *tmp ? tmp : "/tmp") / ("sinklab-scratch-" + std::to_string(::getuid()));
}

// Where this worker trains the run: the shared run folder itself, or its own scratch copy.
fs::path training_dir(const RunAssignment& run, const ClusterOptions& cluster) {
  if (cluster.shared_fs) return run.dir;
  return scratch_root(cluster) / run.sweep_key / run.id;
}

// Where a damaged run file goes: the sweep folder's quarantine/ (SWEEP/runs/ID is the run folder),
// or the worker's own beside its scratch copies of the sweep's runs.
fs::path quarantine_for(const RunAssignment& run, const ClusterOptions& cluster) {
  if (cluster.shared_fs) return quarantine_dir(run.dir.parent_path().parent_path());
  return quarantine_dir(scratch_root(cluster) / run.sweep_key);
}

sweep::PlannedRun planned_run(const RunAssignment& assignment) {
  sweep::PlannedRun run;
  run.id = assignment.id;
  run.config = assignment.config;
  for (const auto& [key, value] : assignment.overrides) run.overrides.push_back({key, value, 0});
  return run;
}

enum class Ending { finished, stopped };

struct Attempt {
  Ending ending = Ending::finished;
  int signal = 0;  // this rank's own stop signal, when stopped by one
  RunResult result;
};

// Tells rank 0 this worker lives, at most every kAliveEveryMilliseconds (cluster/mpi_channel.h).
class AliveSignal {
 public:
  void tick() {
    const auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(kAliveEveryMilliseconds)) return;
    send_message(0, Tag::alive, "");
    last_ = now;
  }

 private:
  Clock::time_point last_{};
};

// A stop from rank 0; after a lost rank, MPI_Finalize would wait for it forever.
bool is_stop(const std::optional<Message>& message) {
  if (!message || message->tag != Tag::stop) return false;
  if (message->bytes == kStopPeerLost) leave_without_finalize();
  return true;
}

// True when rank 0 has said stop while this worker was busy.
bool stop_requested() { return is_stop(poll_message(0)); }

Attempt train_run(const RunAssignment& assignment, const fs::path& dir, const fs::path& executable,
                  const ClusterOptions& cluster, const sweep::StopSignals& stop, AliveSignal& alive) {
  Attempt attempt;
  attempt.result.index = assignment.index;
  const auto start_time = Clock::now();
  // Rank 0 hands out unfinished runs only, so a finished one was finished since: without a shared
  // filesystem, by this worker before its result could reach rank 0 (rank 0 died); with one, by the
  // training of a worker rank 0 gave up on, which ended its step after all. Report it, do not redo it.
  if (sweep::run_finished(dir)) return attempt;
  try {
    for (const QuarantinedFile& moved :
         sweep::quarantine_damaged_run_files(dir, assignment.id, quarantine_for(assignment, cluster)))
      attempt.result.quarantined.emplace_back(moved.damage, moved.moved_to.string());
    const sweep::RunStart start = sweep::choose_run_start(dir);
    sweep::prepare_run_folder(dir, start);
    sweep::ChildSpec spec;
    spec.executable = executable;
    spec.args = sweep::train_arguments(planned_run(assignment), dir, /*jobs=*/1, start);
    spec.args.push_back("--threads");
    spec.args.push_back(std::to_string(cluster.threads));
    spec.env.emplace_back("OMP_NUM_THREADS", std::to_string(cluster.threads));
    spec.log_file = dir / "train.log";
    spec.append_log = start == sweep::RunStart::resume;
    attempt.result.resumed = start == sweep::RunStart::resume;
    sweep::ChildProcess child = sweep::ChildProcess::spawn(spec);
    for (;;) {
      if (const auto status = child.poll()) {
        attempt.result.signaled = status->signaled;
        attempt.result.code = status->code;
        break;
      }
      const int signal = stop.received();
      if (signal != 0 || stop_requested()) {
        child.terminate();  // SIGTERM: train finishes its step and writes its checkpoint
        attempt.ending = Ending::stopped;
        attempt.signal = signal;
        return attempt;
      }
      alive.tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  } catch (const sweep::SweepError& e) {
    attempt.result.error = e.what();
  }
  attempt.result.seconds = std::chrono::duration<double>(Clock::now() - start_time).count();
  return attempt;
}

}  // namespace

int run_worker(const ClusterOptions& cluster, std::ostream& err) {
  const sweep::StopSignals stop;
  fs::path executable;
  try {
    executable = sweep::resolve_executable({});
  } catch (const sweep::SweepError& e) {
    err << "sinklab: worker: " << e.what() << "\n";  // every run it is given fails with this reason
  }
  if (!send_message(0, Tag::ready, "")) return 1;
  AliveSignal alive;
  for (;;) {
    if (const int signal = stop.received()) return 128 + signal;
    alive.tick();
    const auto message = poll_message(0);
    if (!message) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    if (is_stop(message)) return 0;
    if (message->tag != Tag::run) continue;
    const RunAssignment assignment = decode_assignment(message->bytes);
    const fs::path dir = training_dir(assignment, cluster);
    Attempt attempt;
    if (executable.empty()) {
      attempt.result.index = assignment.index;
      attempt.result.error = "sinklab executable not found on this worker";
    } else {
      attempt = train_run(assignment, dir, executable, cluster, stop, alive);
    }
    if (attempt.ending == Ending::stopped) return attempt.signal ? 128 + attempt.signal : 0;
    if (!send_message(0, Tag::result, encode(attempt.result))) return 1;
    if (!cluster.shared_fs) {
      std::string packed;
      try {
        packed = pack_run_folder(dir);
      } catch (const std::exception& e) {
        err << "sinklab: worker: " << e.what() << "\n";
        packed = pack_run_folder(fs::path());  // no files: rank 0 reports the run as failed
      }
      if (!send_message(0, Tag::folder, packed)) return 1;
      // Delivered; rank 0 owns it now. An unfinished one stays here to be resumed if it comes back.
      if (sweep::run_finished(dir)) {
        std::error_code ignored;
        fs::remove_all(dir, ignored);
      }
    }
  }
}

}  // namespace sinklab::cluster
