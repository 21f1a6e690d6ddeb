// `sinklab compare --mpi` under a real `mpirun` (docs/cluster.md): the same summary numbers as a local
// `compare`, with and without a shared filesystem, and no finished run lost when a worker rank is
// killed. Labelled `integration` (tests/CMakeLists.txt): the sanitizer pass skips them, because
// Open MPI's own allocations are reported by LeakSanitizer. Every wait is bounded.
#include <map>
#include <nlohmann/json.hpp>

#include "tests/mpi/mpi_job.h"
#include "tests/support/run_files_without_timing.h"

namespace {

namespace fs = std::filesystem;
using sinklab::testing::processes_mentioning;
using sinklab::testing::read_proc_file;
using sinklab::testing::read_text;
using sinklab::testing::run_command;
using sinklab::testing::sinklab_binary;

// Every run's summary.json without its wall time, by run id.
std::map<std::string, nlohmann::json> summaries(const fs::path& sweep_dir) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& e : fs::directory_iterator(sweep_dir / "runs")) {
    if (!fs::exists(e.path() / "summary.json")) continue;
    nlohmann::json j = nlohmann::json::parse(read_text(e.path() / "summary.json"));
    sinklab::testing::erase_clock_fields(j);
    out[e.path().filename().string()] = j;
  }
  return out;
}

std::map<std::string, std::string> raw_summaries(const fs::path& sweep_dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(sweep_dir / "runs", ec))
    if (fs::exists(e.path() / "summary.json")) out[e.path().filename().string()] = read_text(e.path() / "summary.json");
  return out;
}

class MpiCompare : public sinklab::testing::MpiJobTest {
 protected:
  // The command line: 3 ranks (rank 0 and two workers) on this machine.
  std::string mpi_compare(const std::string& args) const { return mpi_sinklab(3, "compare " + args); }
  std::optional<pid_t> rank_process(int rank, const std::string& text) const {
    return sinklab::testing::rank_process(rank, text, "compare");
  }
};

std::string smoke_sweep() { return std::string(SINKLAB_SOURCE_DIR) + "/configs/sweeps/smoke.yaml"; }

TEST_F(MpiCompare, SameSummaryNumbersAsALocalCompareOnASharedFilesystem) {
  const auto local = run_command(sinklab_binary() + " compare " + smoke_sweep() + " --jobs 2 --out " +
                                 (dir_ / "local").string() + " 2>&1");
  ASSERT_EQ(local.exit_code, 0) << local.output;
  const auto mpi = run_command(mpi_compare(smoke_sweep() + " --mpi --out " + (dir_ / "mpi").string()) + " 2>&1");
  ASSERT_EQ(mpi.exit_code, 0) << mpi.output;
  EXPECT_NE(mpi.output.find("mpi: 2 worker ranks, 1 thread each, shared filesystem"), std::string::npos) << mpi.output;
  EXPECT_NE(mpi.output.find("finished 4 of 4 runs (0 diverged), 0 failed"), std::string::npos) << mpi.output;
  EXPECT_TRUE(fs::exists(dir_ / "mpi" / "report" / "index.html"));
  const auto expected = summaries(dir_ / "local");
  ASSERT_EQ(expected.size(), 4u);
  EXPECT_EQ(summaries(dir_ / "mpi"), expected);
  // Rerunning finds everything finished and trains nothing.
  const auto again = run_command(mpi_compare(smoke_sweep() + " --mpi --out " + (dir_ / "mpi").string()) + " 2>&1");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("resume: 4 of 4 runs already finished"), std::string::npos) << again.output;
}

TEST_F(MpiCompare, SameSummaryNumbersWithoutASharedFilesystem) {
  const auto local = run_command(sinklab_binary() + " compare " + smoke_sweep() + " --jobs 2 --out " +
                                 (dir_ / "local").string() + " 2>&1");
  ASSERT_EQ(local.exit_code, 0) << local.output;
  const fs::path scratch = dir_ / "worker-scratch";
  const auto mpi = run_command(mpi_compare(smoke_sweep() + " --mpi --no-shared-fs --scratch " + scratch.string() +
                                           " --out " + (dir_ / "mpi").string()) +
                               " 2>&1");
  ASSERT_EQ(mpi.exit_code, 0) << mpi.output;
  EXPECT_NE(mpi.output.find("no shared filesystem (run folders sent to rank 0)"), std::string::npos) << mpi.output;
  EXPECT_EQ(summaries(dir_ / "mpi"), summaries(dir_ / "local"));
  // Every run folder arrived whole (attention maps, metrics, log) and the workers kept no finished run.
  for (const auto& e : fs::directory_iterator(dir_ / "local" / "runs")) {
    const fs::path arrived = dir_ / "mpi" / "runs" / e.path().filename();
    for (const char* file : {"config.yaml", "metrics.jsonl", "checkpoint.bin", "train.log", "run.json",
                             "attention/layer0_head0_mean.npy"})
      EXPECT_TRUE(fs::is_regular_file(arrived / file)) << arrived / file;
    EXPECT_EQ(read_text(arrived / "attention/layer0_head0_mean.npy"),
              read_text(e.path() / "attention/layer0_head0_mean.npy"));
  }
  for (const auto& e : fs::recursive_directory_iterator(scratch))
    EXPECT_FALSE(e.path().filename() == "summary.json") << "left on the worker: " << e.path();
  for (const auto& e : fs::directory_iterator(dir_ / "mpi" / "runs"))
    EXPECT_NE(e.path().filename().string().front(), '.') << "temporary folder left: " << e.path();
}

// Eight runs long enough that a kill or a signal lands while some are finished and others are training.
// Runs of a few seconds each (6000 steps of the 1x1 model) with a checkpoint every 100 steps, so a
// test can catch a training in the middle of its loop, after its first checkpoint.
void write_long_sweep(const fs::path& file) {
  std::ofstream(file) << "name: long\nbase: " << SINKLAB_SOURCE_DIR
                      << "/configs/paper/1x1_softmax.yaml\n"
                         "variants:\n  - name: softmax\n    set: {train.max_steps: 6000, "
                         "train.checkpoint_every: 100, train.stop_max_abs_error: 0}\ngrid:\n"
                         "  seed: [0, 1, 2, 3, 4, 5, 6, 7]\n";
}

TEST_F(MpiCompare, AKilledWorkerRankLosesNoFinishedRunAndTheRerunCompletesTheSweep) {
  write_long_sweep(dir_ / "long.yaml");
  const fs::path out = dir_ / "out";
  const pid_t job =
      start(mpi_compare((dir_ / "long.yaml").string() + " --mpi --out " + out.string()), dir_ / "first.log");

  // Wait for a finished run while others are still to do, then kill worker rank 1 outright.
  const auto deadline = Clock::now() + std::chrono::seconds(300);
  while (Clock::now() < deadline && raw_summaries(out).empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_FALSE(raw_summaries(out).empty()) << read_text(dir_ / "first.log");
  const auto worker = rank_process(1, out.string());
  ASSERT_TRUE(worker.has_value()) << "worker rank 1 not found";
  ASSERT_EQ(::kill(*worker, SIGKILL), 0);
  const auto first = wait_for(job, std::chrono::seconds(120));
  ASSERT_TRUE(first.has_value()) << "mpirun did not end after its worker died: " << read_text(dir_ / "first.log");
  EXPECT_NE(*first, 0) << read_text(dir_ / "first.log");
  // Nothing of the job keeps writing into the sweep folder.
  const auto quiet = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < quiet && !processes_mentioning(out.string()).empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(processes_mentioning(out.string()).empty()) << "processes of the killed job are still running";

  const auto kept = raw_summaries(out);
  ASSERT_FALSE(kept.empty());
  ASSERT_LT(kept.size(), 8u) << "every run finished before the kill; the test proves nothing";
  const auto rerun = run_command(mpi_compare((dir_ / "long.yaml").string() + " --mpi --out " + out.string()) + " 2>&1");
  ASSERT_EQ(rerun.exit_code, 0) << rerun.output;
  EXPECT_NE(rerun.output.find("resume: " + std::to_string(kept.size()) + " of 8 runs already finished"),
            std::string::npos)
      << rerun.output;
  const auto all = raw_summaries(out);
  EXPECT_EQ(all.size(), 8u);
  for (const auto& [id, text] : kept) EXPECT_EQ(all.at(id), text) << id << " was redone instead of kept";
}

// Under a launcher that keeps the job going when a rank dies (Open MPI's recovery mode; `srun --no-kill`
// likewise), rank 0 used to wait forever for the dead rank's result. Now the rank falls silent, rank 0
// gives up on it after --worker-timeout and the other worker trains its run: the sweep completes.
TEST_F(MpiCompare, ASilentWorkerRanksRunGoesToAnotherWorker) {
  write_long_sweep(dir_ / "long.yaml");
  const fs::path out = dir_ / "out";
  const std::string command = mpirun_ + " --allow-run-as-root --oversubscribe --mca orte_enable_recovery 1 -np 3 " +
                              sinklab_binary() + " compare " + (dir_ / "long.yaml").string() +
                              " --mpi --worker-timeout 10 --out " + out.string();  // 10: a loaded CI machine
                              // may hold a live worker back for seconds; it must not count as lost
  const pid_t job = start(command, dir_ / "job.log");
  const auto deadline = Clock::now() + std::chrono::seconds(300);
  while (Clock::now() < deadline && raw_summaries(out).empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_FALSE(raw_summaries(out).empty()) << read_text(dir_ / "job.log");
  const auto worker = rank_process(1, out.string());
  ASSERT_TRUE(worker.has_value()) << "worker rank 1 not found";
  ASSERT_LT(raw_summaries(out).size(), 7u) << "too few runs left for the test to mean anything";
  ASSERT_EQ(::kill(*worker, SIGKILL), 0);

  const auto ended = wait_for(job, std::chrono::seconds(600));
  const std::string log = read_text(dir_ / "job.log");
  ASSERT_TRUE(ended.has_value()) << "rank 0 still waits for the dead rank: " << log;
  // Silent for the timeout, or (killed between two messages) not taking its next run: either way lost.
  const bool lost = log.find("mpi: worker rank 1 was silent for 10 s (dead or hung)") != std::string::npos ||
                    log.find("mpi: worker rank 1 did not take a run within 10 s") != std::string::npos ||
                    log.find("mpi: worker rank 1 died in the middle of a message") != std::string::npos;
  EXPECT_TRUE(lost) << log;
  EXPECT_NE(log.find("finished 8 of 8 runs (0 diverged), 0 failed"), std::string::npos) << log;
  EXPECT_NE(log.find("worker rank(s) lost; the ranks leave without MPI_Finalize"), std::string::npos) << log;
  EXPECT_EQ(raw_summaries(out).size(), 8u);
  const auto quiet = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < quiet && !processes_mentioning(out.string()).empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(processes_mentioning(out.string()).empty()) << "processes of the job are still running";
}

// Ctrl-C on mpirun, or SIGTERM to every rank (what scancel and a Slurm time limit do): every process of
// the job ends, the trainings leave checkpoints, and the rerun resumes them and finishes the sweep.
class MpiCompareStopped : public MpiCompare, public ::testing::WithParamInterface<bool> {};

TEST_P(MpiCompareStopped, EveryRankStopsAndTheRerunResumes) {
  const bool signal_every_rank = GetParam();
  write_long_sweep(dir_ / "long.yaml");
  const fs::path out = dir_ / "out";
  const pid_t job =
      start(mpi_compare((dir_ / "long.yaml").string() + " --mpi --out " + out.string()), dir_ / "first.log");
  // Stop while a training is under way: a run folder with a checkpoint and no summary yet is a
  // training inside its loop (a finished run also keeps its checkpoint, so checkpoints alone are not
  // enough: with short runs the stop could fall between two runs and leave nothing to resume).
  const auto deadline = Clock::now() + std::chrono::seconds(300);
  auto trainings_under_way = [&] {
    int n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out / "runs", ec))
      n += fs::exists(e.path() / "checkpoint.bin") && !fs::exists(e.path() / "summary.json");
    return n;
  };
  while (Clock::now() < deadline && trainings_under_way() < 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(trainings_under_way(), 1) << read_text(dir_ / "first.log");
  if (signal_every_rank) {
    for (int rank = 0; rank < 3; ++rank)
      if (const auto pid = rank_process(rank, out.string())) ::kill(*pid, SIGTERM);
  } else {
    const auto mpirun = processes_mentioning(out.string());
    for (const pid_t pid : mpirun)
      if (read_proc_file("/proc/" + std::to_string(pid) + "/cmdline").rfind(mpirun_, 0) == 0) ::kill(pid, SIGINT);
  }
  const auto first = wait_for(job, std::chrono::seconds(120));
  ASSERT_TRUE(first.has_value()) << "the job did not stop: " << read_text(dir_ / "first.log");
  EXPECT_NE(*first, 0) << read_text(dir_ / "first.log");
  const auto quiet = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < quiet && !processes_mentioning(out.string()).empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(processes_mentioning(out.string()).empty()) << "processes of the stopped job are still running";
  for (const auto& e : fs::directory_iterator(out / "runs"))
    EXPECT_NE(e.path().filename().string().front(), '.') << "temporary folder left: " << e.path();

  const auto kept = raw_summaries(out);
  const auto rerun = run_command(mpi_compare((dir_ / "long.yaml").string() + " --mpi --out " + out.string()) + " 2>&1");
  ASSERT_EQ(rerun.exit_code, 0) << rerun.output;
  EXPECT_NE(rerun.output.find("resumed from its checkpoint"), std::string::npos) << rerun.output;
  const auto all = raw_summaries(out);
  EXPECT_EQ(all.size(), 8u);
  for (const auto& [id, text] : kept) EXPECT_EQ(all.at(id), text) << id << " was redone instead of kept";
}

INSTANTIATE_TEST_SUITE_P(CtrlCOnMpirunOrSigtermToEveryRank, MpiCompareStopped, ::testing::Bool());

// As the local compare (docs/compare.md, "Damaged run files"): a summary.json that does not read and a
// run folder of another seed are moved aside on rank 0, both runs are trained again to the same numbers,
// and rank 0 exits 4; with or without a shared filesystem (then the workers train elsewhere).
class MpiCompareDamaged : public MpiCompare, public ::testing::WithParamInterface<bool> {};

TEST_P(MpiCompareDamaged, DamagedRunFilesAreMovedAsideRetrainedAndExitFour) {
  const bool shared_fs = GetParam();
  const std::string args = smoke_sweep() + " --mpi --out " + (dir_ / "mpi").string() +
                           (shared_fs ? "" : " --no-shared-fs --scratch " + (dir_ / "worker-scratch").string());
  const auto first = run_command(mpi_compare(args) + " 2>&1");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto expected = summaries(dir_ / "mpi");
  ASSERT_EQ(expected.size(), 4u);
  std::ofstream(dir_ / "mpi/runs/softmax_seed=1/summary.json", std::ios::trunc).flush();  // empty
  fs::remove_all(dir_ / "mpi/runs/relu_seed=1");
  fs::copy(dir_ / "mpi/runs/relu_seed=0", dir_ / "mpi/runs/relu_seed=1", fs::copy_options::recursive);

  const auto again = run_command(mpi_compare(args) + " 2>&1");
  EXPECT_EQ(again.exit_code, 4) << again.output;
  EXPECT_NE(again.output.find("note: softmax_seed=1 (softmax, seed=1): damaged run file (summary.json does not read"),
            std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("note: relu_seed=1 (relu, seed=1): damaged run file (summary.json names seed 0, but "
                              "the sweep planned seed 1"),
            std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("finished 4 of 4 runs (0 diverged), 0 failed, 3 damaged run files moved aside"),
            std::string::npos)
      << again.output;
  EXPECT_EQ(again.output.find("FAILED"), std::string::npos) << again.output;
  EXPECT_EQ(summaries(dir_ / "mpi"), expected);

  const auto third = run_command(mpi_compare(args) + " 2>&1");
  EXPECT_EQ(third.exit_code, 0) << third.output;
  EXPECT_NE(third.output.find("resume: 4 of 4 runs already finished"), std::string::npos) << third.output;
}

INSTANTIATE_TEST_SUITE_P(SharedFilesystemOrNot, MpiCompareDamaged, ::testing::Bool());

TEST_F(MpiCompare, FlagsOfTheMpiRunnerNeedMpi) {
  const auto r = run_command(sinklab_binary() + " compare " + smoke_sweep() + " --no-shared-fs 2>&1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--no-shared-fs requires --mpi"), std::string::npos) << r.output;
}

TEST_F(MpiCompare, OneRankIsRefusedWithTheCommandToUse) {
  const auto r = run_command(mpirun_ + " --allow-run-as-root -np 1 " + sinklab_binary() + " compare " + smoke_sweep() +
                             " --mpi --out " + (dir_ / "one").string() + " 2>&1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--mpi needs at least 2 ranks"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "one" / "sweep.json"));
}

}  // namespace
