// `sinklab train --mpi` under a real `mpirun` (docs/cluster.md): one run's batch shards over 2 or 3
// ranks give the checkpoint, summary and log of one process with the same shards, byte for byte; an
// interrupted or broken job resumes (on any number of ranks that divides the shards) to the same bytes;
// a config whose shards do not split over the ranks is refused before training. Labelled
// `integration` like tests/mpi/mpi_compare_test.cpp.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "tests/mpi/mpi_job.h"
#include "tests/support/run_files_without_timing.h"

namespace {

namespace fs = std::filesystem;
using sinklab::testing::read_text;
using sinklab::testing::run_command;
using sinklab::testing::sinklab_binary;

std::string paper_config() { return std::string(SINKLAB_SOURCE_DIR) + "/configs/paper/1x1_softmax.yaml"; }

// The 1x1 softmax model of the paper with a batch of 96 in 6 shards, trained for `steps` steps.
std::string sharded(int steps) {
  return paper_config() + " --set train.batch_size=96 --set train.batch_shards=6 --set train.max_steps=" +
         std::to_string(steps) + " --set train.checkpoint_every=25 --set train.stop_max_abs_error=0 --quiet";
}

nlohmann::json summary_without_time(const fs::path& run) {
  nlohmann::json j = nlohmann::json::parse(read_text(run / "summary.json"));
  sinklab::testing::erase_clock_fields(j);
  return j;
}

// metrics.jsonl without the wall-clock steps/s of each line.
std::vector<nlohmann::json> metrics_without_time(const fs::path& run) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(read_text(run / "metrics.jsonl"));
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    j.erase("steps_per_second");
    lines.push_back(j);
  }
  return lines;
}

class MpiTrain : public sinklab::testing::MpiJobTest {
 protected:
  // One process with the same shards: what every MPI run below must equal.
  fs::path reference(int steps) {
    const fs::path run = dir_ / "one";
    const auto r = run_command(sinklab_binary() + " train " + sharded(steps) + " --out " + run.string() + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return run;
  }
  void expect_same_run(const fs::path& run, const fs::path& expected) {
    EXPECT_EQ(read_text(run / "checkpoint.bin"), read_text(expected / "checkpoint.bin")) << run;
    EXPECT_EQ(summary_without_time(run), summary_without_time(expected)) << run;
    EXPECT_EQ(metrics_without_time(run), metrics_without_time(expected)) << run;
    EXPECT_EQ(read_text(run / "attention" / "layer0_head0_mean.npy"),
              read_text(expected / "attention" / "layer0_head0_mean.npy"));
  }
  std::optional<pid_t> rank_process(int rank) const {
    return sinklab::testing::rank_process(rank, dir_.string(), "train");
  }
  // Starts a 3-rank job of `steps` steps in `run` and returns once it has written a checkpoint past step 0.
  pid_t start_long_job(const fs::path& run, int steps) {
    const pid_t job =
        start(mpi_sinklab(3, "train " + sharded(steps) + " --mpi --out " + run.string()), dir_ / "first.log");
    const auto deadline = Clock::now() + std::chrono::seconds(300);
    while (Clock::now() < deadline) {
      const std::string log = read_text(run / "metrics.jsonl");
      if (std::count(log.begin(), log.end(), '\n') >= 3) break;  // past the checkpoint at step 25
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return job;
  }
};

TEST_F(MpiTrain, TwoAndThreeRanksWriteTheBytesOfOneProcessWithTheSameShards) {
  const fs::path expected = reference(60);
  for (const int ranks : {2, 3}) {
    const fs::path run = dir_ / ("ranks" + std::to_string(ranks));
    const auto r = run_command(mpi_sinklab(ranks, "train " + sharded(60) + " --mpi --out " + run.string()) + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_same_run(run, expected);
    const nlohmann::json provenance = nlohmann::json::parse(read_text(run / "run.json"));
    EXPECT_EQ(provenance.value("mpi_ranks", 0), ranks) << provenance.dump();
  }
}

TEST_F(MpiTrain, AnInterruptedJobResumesOnAnyRankCountToTheSameBytes) {
  const fs::path expected = reference(3000);
  const fs::path run = dir_ / "mpi";
  const pid_t job = start_long_job(run, 3000);
  ASSERT_FALSE(fs::exists(run / "summary.json")) << "the run finished before the signal; the test proves nothing";
  for (int rank = 0; rank < 3; ++rank)  // as a batch scheduler stops a job: every rank at once
    if (const auto pid = rank_process(rank)) ::kill(*pid, SIGTERM);
  const auto first = wait_for(job, std::chrono::seconds(120));
  ASSERT_TRUE(first.has_value()) << "the job did not stop: " << read_text(dir_ / "first.log");
  EXPECT_NE(*first, 0) << read_text(dir_ / "first.log");
  EXPECT_NE(read_text(dir_ / "first.log").find("interrupted at step"), std::string::npos)
      << read_text(dir_ / "first.log");
  EXPECT_TRUE(all_ended(std::chrono::seconds(60))) << "processes of the stopped job are still running";
  ASSERT_FALSE(fs::exists(run / "summary.json"));
  // Resumed on 2 ranks: 6 shards split 3 + 3 instead of 2 + 2 + 2, the same sum.
  const auto resumed = run_command(mpi_sinklab(2, "train --resume " + run.string() + " --mpi --quiet") + " 2>&1");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  expect_same_run(run, expected);
}

TEST_F(MpiTrain, AKilledRankEndsTheJobAndTheRunResumesFromItsCheckpoint) {
  const fs::path expected = reference(3000);
  const fs::path run = dir_ / "mpi";
  const pid_t job = start_long_job(run, 3000);
  ASSERT_FALSE(fs::exists(run / "summary.json")) << "the run finished before the kill; the test proves nothing";
  const auto worker = rank_process(1);
  ASSERT_TRUE(worker.has_value()) << "rank 1 not found";
  ASSERT_EQ(::kill(*worker, SIGKILL), 0);
  const auto first = wait_for(job, std::chrono::seconds(120));
  ASSERT_TRUE(first.has_value()) << "mpirun did not end after a rank died: " << read_text(dir_ / "first.log");
  EXPECT_NE(*first, 0) << read_text(dir_ / "first.log");
  // mpirun names the dead rank; rank 0 says how to continue.
  EXPECT_NE(read_text(dir_ / "first.log").find("rank 1"), std::string::npos) << read_text(dir_ / "first.log");
  EXPECT_NE(read_text(dir_ / "first.log").find("continue from its last one with `mpirun -np 3 " + sinklab_binary() +
                                               " train --resume " + run.string() + " --mpi`"),
            std::string::npos)
      << read_text(dir_ / "first.log");
  EXPECT_TRUE(all_ended(std::chrono::seconds(60))) << "processes of the killed job are still running";
  ASSERT_FALSE(fs::exists(run / "summary.json"));
  const auto resumed = run_command(mpi_sinklab(3, "train --resume " + run.string() + " --mpi --quiet") + " 2>&1");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  expect_same_run(run, expected);
}

TEST_F(MpiTrain, ShardsThatDoNotSplitOverTheRanksAreRefusedBeforeTraining) {
  const fs::path run = dir_ / "mpi";
  const auto r = run_command(mpi_sinklab(4, "train " + sharded(20) + " --mpi --out " + run.string()) + " 2>&1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("train.batch_shards is 6, not a multiple of the 4 ranks"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(run / "metrics.jsonl")) << "training started";
  EXPECT_TRUE(all_ended(std::chrono::seconds(30)));
}

}  // namespace
