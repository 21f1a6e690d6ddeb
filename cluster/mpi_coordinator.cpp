#include "cluster/mpi_coordinator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <optional>
#include <ostream>
#include <thread>
#include <vector>

#include "cluster/mpi_channel.h"
#include "cluster/run_folder_transfer.h"
#include "cluster/run_messages.h"
#include "core/fnv1a.h"
#include "run_files/run_folder_lock.h"
#include "sweep/run_cost.h"
#include "sweep/stop_signals.h"
#include "sweep/sweep_error.h"
#include "sweep/sweep_runner.h"

namespace sinklab::cluster {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Tells every worker that has not been told yet to stop, also when rank 0 leaves by an exception, so
// no worker waits for a run that never comes.
class Workers {
 public:
  explicit Workers(int ranks) : stopped_(static_cast<std::size_t>(ranks), false) { stopped_[0] = true; }
  ~Workers() { stop_all(); }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  void stop(int rank) {
    if (stopped_[static_cast<std::size_t>(rank)]) return;
    stopped_[static_cast<std::size_t>(rank)] = true;
    // A rank that died cannot be told; that is fine. After a loss, every rank skips MPI_Finalize.
    send_message_within(rank, Tag::stop, lost_ > 0 ? kStopPeerLost : "", kRankZeroSendMilliseconds);
  }
  void stop_all() {
    for (int rank = 1; rank < static_cast<int>(stopped_.size()); ++rank) stop(rank);
  }
  // Gives up on a silent rank: it gets no more runs, and MPI_Finalize, which would wait for it, is skipped.
  void lose(int rank) {
    leave_without_finalize();
    stopped_[static_cast<std::size_t>(rank)] = true;  // not told: a message to it could wait for a dead rank
    ++lost_;
  }
  int count() const { return static_cast<int>(stopped_.size()) - 1; }
  bool stopped(int rank) const { return stopped_[static_cast<std::size_t>(rank)]; }
  bool all_stopped() const { return std::find(stopped_.begin(), stopped_.end(), false) == stopped_.end(); }
  int lost() const { return lost_; }

 private:
  std::vector<bool> stopped_;
  int lost_ = 0;
};

// A short, stable name for the sweep's folder in the workers' scratch space: the sweep name and a hash
// of rank 0's absolute output folder (two sweeps of one name into different folders stay apart).
std::string sweep_key(const sweep::PlannedSweep& plan) {
  const std::uint64_t hash = fnv1a(fs::absolute(plan.out_dir).lexically_normal().string());
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return plan.spec.name + "-" + hex;
}

RunAssignment assignment_for(const sweep::PlannedSweep& plan, std::size_t index, const std::string& key) {
  const sweep::PlannedRun& run = plan.runs[index];
  RunAssignment a;
  a.index = index;
  a.id = run.id;
  a.config = fs::absolute(run.config);
  for (const auto& o : run.overrides) a.overrides.emplace_back(o.key, o.value);
  a.dir = fs::absolute(sweep::run_dir(plan.out_dir, run));
  a.sweep_key = key;
  return a;
}

}  // namespace

int coordinate_sweep(const sweep::CompareOptions& options, const ClusterOptions& cluster, int ranks,
                     std::ostream& out, std::ostream& err) {
  Workers workers(ranks);
  if (workers.count() < 1)
    throw sweep::SweepError(
        "--mpi needs at least 2 ranks (rank 0 plans, the others train): mpirun -np 3 sinklab compare ... --mpi");
  sweep::CompareOptions per_rank = options;
  per_rank.jobs = 1;  // the memory check: each worker rank trains one run at a time on its own node
  const sweep::PlannedSweep plan = sweep::plan_sweep(per_rank, out);
  if (options.dry_run) {
    sweep::list_planned_runs(plan, out);
    return 0;
  }
  const RunFolderLock lock(plan.out_dir, "sweep folder");  // one compare per sweep folder
  sweep::prepare_sweep_folder(plan, out);
  out << "mpi: " << workers.count() << (workers.count() == 1 ? " worker rank, " : " worker ranks, ")
      << cluster.threads << (cluster.threads == 1 ? " thread" : " threads") << " each, "
      << (cluster.shared_fs ? "shared filesystem" : "no shared filesystem (run folders sent to rank 0)") << std::endl;

  auto say = [&out](const std::string& line) { out << line << std::endl; };
  sweep::SweepOutcome outcome;
  const std::vector<std::size_t> unfinished = sweep::unfinished_runs(plan.runs, plan.out_dir, outcome, say);
  const std::vector<double> costs = sweep::expected_run_costs(plan.runs, options.vocab);
  std::deque<std::size_t> queue;  // longest expected first; equal costs in plan order
  {
    std::vector<double> unfinished_costs;
    for (const std::size_t i : unfinished) unfinished_costs.push_back(costs[i]);
    for (const std::size_t k : sweep::longest_first(unfinished_costs)) queue.push_back(unfinished[k]);
  }
  const std::string key = sweep_key(plan);
  const std::size_t total = plan.runs.size();
  std::size_t finished = outcome.skipped.size();
  int busy = 0;
  // Per rank: the run it trains, and when it was last heard from (every worker says `alive` each
  // second); a rank silent for cluster.worker_timeout_seconds is lost and its run goes back to the queue.
  std::vector<std::optional<std::size_t>> running(static_cast<std::size_t>(ranks));
  std::vector<Clock::time_point> heard(static_cast<std::size_t>(ranks), Clock::now());
  std::deque<int> idle;  // ranks waiting for a run: kept until the sweep ends, for runs that come back
  const auto timeout = std::chrono::seconds(cluster.worker_timeout_seconds);

  auto lose = [&](int rank, const std::string& why) {
    if (workers.stopped(rank)) return;  // told to stop, or lost already
    workers.lose(rank);
    idle.erase(std::remove(idle.begin(), idle.end(), rank), idle.end());
    std::string line = "mpi: worker rank " + std::to_string(rank) + " " + why;
    if (const auto index = running[static_cast<std::size_t>(rank)]) {
      line += "; " + plan.runs[*index].id + " goes back to the queue";
      queue.push_front(*index);
      running[static_cast<std::size_t>(rank)].reset();
      --busy;
    }
    say(line);
  };

  auto hand_out = [&] {
    while (!queue.empty() && !idle.empty()) {
      const int rank = idle.front();
      idle.pop_front();
      if (!send_message_within(rank, Tag::run, encode(assignment_for(plan, queue.front(), key)),
                               kRankZeroSendMilliseconds)) {
        lose(rank, "did not take a run within " + std::to_string(kRankZeroSendMilliseconds / 1000) + " s");
        continue;  // the run stays queued for the others
      }
      running[static_cast<std::size_t>(rank)] = queue.front();
      queue.pop_front();
      ++busy;
    }
  };
  const sweep::StopSignals stop;
  while (!queue.empty() || busy > 0) {
    if (const int signal = stop.received()) {
      workers.stop_all();  // each stops its training (train checkpoints on SIGTERM) and leaves
      throw sweep::SweepInterrupted(signal, std::string("interrupted (") + strsignal(signal) + "): stopped " +
                                                std::to_string(busy) + " running on the workers, " +
                                                std::to_string(finished) + " of " + std::to_string(total) +
                                                " finished; run the same command again to resume");
    }
    for (int rank = 1; rank < ranks; ++rank)
      if (!workers.stopped(rank) && Clock::now() - heard[static_cast<std::size_t>(rank)] > timeout)
        lose(rank, "was silent for " + std::to_string(cluster.worker_timeout_seconds) + " s (dead or hung)");
    if (workers.all_stopped())
      throw sweep::SweepError("every worker rank was lost or gone, " + std::to_string(finished) + " of " +
                              std::to_string(total) + " runs finished; run the same command again to resume");
    hand_out();
    std::optional<Message> message;
    try {
      message = poll_message();
    } catch (const PeerSilent& e) {
      lose(e.rank(), "died in the middle of a message");
      continue;
    }
    if (!message) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    const int source = message->source;
    if (workers.stopped(source)) continue;  // a lost rank that spoke after all: its run is someone else's now
    heard[static_cast<std::size_t>(source)] = Clock::now();
    if (message->tag == Tag::ready) {
      idle.push_back(source);
      continue;
    }
    if (message->tag != Tag::result) continue;
    const RunResult result = decode_result(message->bytes);
    running[static_cast<std::size_t>(source)].reset();
    --busy;
    const sweep::PlannedRun& run = plan.runs.at(result.index);
    const fs::path dir = sweep::run_dir(plan.out_dir, run);
    for (const auto& [damage, moved_to] : result.quarantined)
      sweep::record_quarantine(run, {run.id, damage, moved_to}, outcome, say);
    std::string failure = result.error;
    if (!cluster.shared_fs) {
      const auto limit_ms = static_cast<int>(std::min<long long>(cluster.worker_timeout_seconds * 1000LL, 1 << 30));
      std::optional<std::string> packed;
      try {
        packed = receive_message(source, Tag::folder, limit_ms);
      } catch (const PeerSilent&) {  // counted below as a folder that did not arrive
      }
      try {
        if (!packed)
          throw std::runtime_error("it did not arrive within " + std::to_string(cluster.worker_timeout_seconds) + " s");
        install_run_folder(*packed, dir);
      } catch (const std::exception& e) {
        if (failure.empty()) failure = std::string("its run folder could not be written on rank 0: ") + e.what();
      }
      if (!packed) lose(source, "sent a result but not its run folder");
    }
    const sweep::ExitStatus status{result.signaled, result.code};
    sweep::record_run_end(run, dir, status, std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(result.seconds)),
                          result.resumed, sweep::counter_text(++finished, total), 15, outcome, say, failure);
    if (!workers.stopped(source)) idle.push_back(source);
  }
  if (workers.lost() > 0)
    say("mpi: " + std::to_string(workers.lost()) + " worker rank(s) lost; the ranks leave without MPI_Finalize, "
        "which would wait for them");
  workers.stop_all();
  return sweep::finish_sweep(plan, outcome, options, out, err);
}

}  // namespace sinklab::cluster
