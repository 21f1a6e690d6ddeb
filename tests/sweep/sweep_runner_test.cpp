#include "sweep/sweep_runner.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include "sweep/sweep_error.h"
#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::FakeTrainOptions;
using testing::read_file;
using testing::ScratchDir;
using testing::write_fake_train;
using testing::write_file;
using testing::write_intact_checkpoint;

// summary.json has one reader (run_files/run_summary.h): a JSON object it refuses is no finished run, and a
// FIFO in its place is refused at once instead of blocking the runner.
TEST(RunFinished, OnlyASummaryItsReaderAcceptsIsFinished) {
  ScratchDir dir;
  EXPECT_FALSE(run_finished(dir.path()));
  write_file(dir / "summary.json", "{\"steps\": 42}");
  EXPECT_FALSE(run_finished(dir.path()));
  write_file(dir / "summary.json", testing::fake_summary_json(42, false));
  EXPECT_TRUE(run_finished(dir.path()));
  std::filesystem::remove(dir / "summary.json");
  ASSERT_EQ(::mkfifo((dir / "summary.json").c_str(), 0600), 0);
  EXPECT_FALSE(run_finished(dir.path()));
  const auto moved = quarantine_damaged_run_files(dir.path(), "r", dir / "quarantine");
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_NE(moved[0].damage.find("summary.json does not read: summary " + (dir / "summary.json").string() +
                                 ": is not a regular file"),
            std::string::npos)
      << moved[0].damage;
}

class SweepRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { write_file(dir / "a.yaml", "seed: 0\n"); }

  std::vector<PlannedRun> plan(const std::string& grid) {
    return expand_sweep(parse_sweep_spec("base: a.yaml\ngrid:\n" + grid, dir / "s.yaml"));
  }
  SweepOutcome run(const std::vector<PlannedRun>& runs, const FakeTrainOptions& fake, int jobs) {
    RunnerOptions options;
    options.executable = write_fake_train(dir / "fake_train.sh", fake);
    options.jobs = jobs;
    options.progress = [this](const std::string& line) { lines.push_back(line); };
    return run_sweep(runs, dir / "out", options);
  }
  std::filesystem::path run_path(const std::string& id) { return dir / "out" / "runs" / id; }

  ScratchDir dir;
  std::vector<std::string> lines;
};

TEST_F(SweepRunnerTest, RunsEveryRunAndPassesConfigOverridesAndThreads) {
  const auto runs = plan("  seed: [0, 1]\n  optimizer.lr: [1e-3]\n");
  const SweepOutcome outcome = run(runs, {}, 2);
  EXPECT_EQ(outcome.completed.size(), 2u);
  EXPECT_TRUE(outcome.failed.empty());
  EXPECT_TRUE(run_finished(run_path("a_lr=0.001_seed=1")));
  const std::string args = read_file(run_path("a_lr=0.001_seed=1") / "args.txt");
  EXPECT_EQ(args, "train " + (dir / "a.yaml").lexically_normal().string() +
                      " --set seed=1 --set optimizer.lr=1e-3 --out " + run_path("a_lr=0.001_seed=1").string() +
                      " --threads 1\n");
  EXPECT_EQ(read_file(run_path("a_lr=0.001_seed=1") / "omp.txt"), "1\n");
  EXPECT_NE(read_file(run_path("a_lr=0.001_seed=1") / "train.log").find("step 42"), std::string::npos);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].rfind("[2/2] a, seed=", 0), 0u) << lines[1];  // label and seed; lr=0.001 is every run's
  EXPECT_NE(lines[1].find(" done in "), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(" s, steps 42"), std::string::npos) << lines[1];
}

TEST_F(SweepRunnerTest, OneJobLeavesThreadsToTheConfig) {
  const auto runs = plan("  seed: [0]\n");
  run(runs, {}, 1);
  const std::string args = read_file(run_path("a_seed=0") / "args.txt");
  EXPECT_EQ(args.find("--threads"), std::string::npos) << args;
}

TEST_F(SweepRunnerTest, ParallelJobsLimitIsRespected) {
  const auto runs = plan("  seed: [0, 1, 2, 3, 4]\n");
  FakeTrainOptions fake;
  fake.sleep_seconds = 0.3;
  fake.probe_dir = dir / "alive";
  const SweepOutcome outcome = run(runs, fake, 2);
  ASSERT_EQ(outcome.completed.size(), 5u);
  EXPECT_EQ(outcome.max_parallel, 2);
  int most_seen = 0;
  for (const auto& r : runs) most_seen = std::max(most_seen, std::stoi(read_file(run_path(r.id) / "alive.txt")));
  EXPECT_LE(most_seen, 2);  // the children themselves never saw a third one alive
  EXPECT_EQ(most_seen, 2);  // and two really did overlap
}

TEST_F(SweepRunnerTest, ResumeSkipsFinishedRedoesHalfWrittenAndRetriesFailed) {
  const auto runs = plan("  seed: [0, 1, 2, 3]\n");
  // First attempt: seed 2 fails; the others finish.
  FakeTrainOptions failing;
  failing.fail_when_out_contains = "seed=2";
  SweepOutcome first = run(runs, failing, 2);
  EXPECT_EQ(first.completed.size(), 3u);
  ASSERT_EQ(first.failed.size(), 1u);
  EXPECT_EQ(first.failed[0].id, "a_seed=2");

  // Simulate an interruption of seed 3: summary half-written, a stale file left behind.
  write_file(run_path("a_seed=3") / "summary.json", "{\"steps\": 4");
  write_file(run_path("a_seed=3") / "stale.bin", "x");

  lines.clear();
  SweepOutcome second = run(runs, {}, 2);
  EXPECT_EQ(second.skipped, (std::vector<std::string>{"a_seed=0", "a_seed=1"}));
  std::vector<std::string> completed = second.completed;
  std::sort(completed.begin(), completed.end());
  EXPECT_EQ(completed, (std::vector<std::string>{"a_seed=2", "a_seed=3"}));
  EXPECT_TRUE(second.failed.empty());
  EXPECT_FALSE(std::filesystem::exists(run_path("a_seed=3") / "stale.bin"));
  EXPECT_TRUE(run_finished(run_path("a_seed=3")));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "resume: 2 of 4 runs already finished, skipping them");
  EXPECT_EQ(lines.back().rfind("[4/4] ", 0), 0u) << lines.back();

  // Third attempt: nothing left to do, nothing started.
  SweepOutcome third = run(runs, failing, 2);
  EXPECT_EQ(third.skipped.size(), 4u);
  EXPECT_TRUE(third.completed.empty());
  EXPECT_EQ(third.max_parallel, 0);
}

TEST_F(SweepRunnerTest, FailuresAreCollectedWithStatusAndLogTail) {
  const auto runs = plan("  seed: [0, 1, 2]\n");
  FakeTrainOptions fake;
  fake.fail_when_out_contains = "seed=1";
  fake.fail_exit_code = 2;
  const SweepOutcome outcome = run(runs, fake, 2);
  EXPECT_EQ(outcome.completed.size(), 2u);  // the failure did not stop the others
  ASSERT_EQ(outcome.failed.size(), 1u);
  const RunFailure& f = outcome.failed[0];
  EXPECT_FALSE(f.status.signaled);
  EXPECT_EQ(f.status.code, 2);
  EXPECT_NE(f.log_tail.find("error: loss became NaN at step 11"), std::string::npos) << f.log_tail;

  const std::string report = format_failure_report(outcome.failed);
  EXPECT_NE(report.find("1 run failed"), std::string::npos) << report;
  EXPECT_NE(report.find("- a_seed=1 (a, seed=1): exit 2"), std::string::npos) << report;
  EXPECT_NE(report.find("log: " + (run_path("a_seed=1") / "train.log").string()), std::string::npos) << report;
  EXPECT_NE(report.find("  | step 10 loss 0.5\n  | error: loss became NaN at step 11\n"), std::string::npos)
      << report;
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("a, seed=1 FAILED (exit 2)") != std::string::npos;
  }));
}

TEST_F(SweepRunnerTest, SignalsAndCleanExitsWithoutSummaryAreFailures) {
  const auto runs = plan("  seed: [0, 1]\n");
  FakeTrainOptions killed;
  killed.fail_when_out_contains = "seed=0";
  killed.fail_by_signal = true;
  SweepOutcome outcome = run(runs, killed, 1);
  ASSERT_EQ(outcome.failed.size(), 1u);
  EXPECT_TRUE(outcome.failed[0].status.signaled);
  EXPECT_EQ(outcome.failed[0].status.code, 9);
  EXPECT_EQ(outcome.failed[0].reason.rfind("signal 9", 0), 0u) << outcome.failed[0].reason;

  FakeTrainOptions silent;
  silent.fail_when_out_contains = "seed=0";
  silent.fail_exit_code = 0;
  outcome = run(runs, silent, 1);
  ASSERT_EQ(outcome.failed.size(), 1u);
  EXPECT_EQ(outcome.failed[0].reason, "exit 0 but no readable summary.json");
}

TEST_F(SweepRunnerTest, ASignalStopsTheChildrenAndTheNextCallResumes) {
  const auto runs = plan("  seed: [0, 1, 2, 3]\n");
  FakeTrainOptions fake;
  fake.sleep_seconds = 20;  // only a terminated run ends early
  fake.interrupt_when_out_contains = "seed=1";
  const auto start = std::chrono::steady_clock::now();
  try {
    run(runs, fake, 2);
    FAIL() << "expected SweepInterrupted";
  } catch (const SweepInterrupted& e) {
    EXPECT_EQ(e.signal(), SIGTERM);
    EXPECT_NE(std::string(e.what()).find("stopped 2 running, 0 of 4 finished; run the same command again"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));  // did not wait for them
  struct sigaction now {};
  sigaction(SIGTERM, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);  // the runner's handler is gone again
  EXPECT_FALSE(run_finished(run_path("a_seed=0")));
  EXPECT_TRUE(std::filesystem::exists(run_path("a_seed=0") / "train.log"));  // a half-done run folder

  const SweepOutcome resumed = run(runs, {}, 2);
  EXPECT_TRUE(resumed.skipped.empty());
  EXPECT_EQ(resumed.completed.size(), 4u);
  EXPECT_FALSE(std::filesystem::exists(run_path("a_seed=0") / "alive.txt"));
}

TEST_F(SweepRunnerTest, LongLogsAreCutToTheLastLines) {
  const auto runs = plan("  seed: [0]\n");
  RunnerOptions options;
  std::string script = "#!/bin/sh\ni=0\nwhile [ $i -lt 100 ]; do echo line $i; i=$((i+1)); done\nexit 1\n";
  write_file(dir / "noisy.sh", script);
  chmod((dir / "noisy.sh").c_str(), 0755);
  options.executable = dir / "noisy.sh";
  options.jobs = 1;
  options.log_tail_lines = 3;
  options.progress = [](const std::string&) {};
  const SweepOutcome outcome = run_sweep(runs, dir / "out", options);
  ASSERT_EQ(outcome.failed.size(), 1u);
  EXPECT_EQ(outcome.failed[0].log_tail, "line 97\nline 98\nline 99");
}

TEST_F(SweepRunnerTest, MissingExecutableIsASetupError) {
  RunnerOptions options;
  options.executable = dir / "no-such-sinklab";
  try {
    run_sweep(plan("  seed: [0]\n"), dir / "out", options);
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-sinklab' not found"), std::string::npos) << e.what();
  }
}


TEST_F(SweepRunnerTest, DivergedRunsCountAsFinishedNotFailedAndAreNotRerun) {
  const auto runs = plan("  seed: [0, 1, 2]\n");
  FakeTrainOptions fake;
  fake.diverge_when_out_contains = "seed=1";
  const SweepOutcome first = run(runs, fake, 2);
  EXPECT_TRUE(first.failed.empty());
  EXPECT_EQ(first.completed.size(), 2u);
  EXPECT_EQ(first.diverged, (std::vector<std::string>{"a_seed=1"}));
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("a, seed=1 diverged (loss is nan at step 11)") != std::string::npos;
  })) << ::testing::PrintToString(lines);

  lines.clear();
  const SweepOutcome second = run(runs, {}, 2);
  EXPECT_EQ(second.skipped.size(), 3u);  // the diverged run is finished: not redone
  EXPECT_EQ(second.skipped_diverged, (std::vector<std::string>{"a_seed=1"}));
  EXPECT_EQ(second.max_parallel, 0);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "resume: 3 of 3 runs already finished (1 diverged), skipping them");
}

TEST_F(SweepRunnerTest, ExitThreeWithoutADivergedSummaryIsAFailure) {
  const auto runs = plan("  seed: [0]\n");
  FakeTrainOptions fake;
  fake.fail_when_out_contains = "seed=0";  // exit 3, no summary
  const SweepOutcome outcome = run(runs, fake, 1);
  ASSERT_EQ(outcome.failed.size(), 1u);
  EXPECT_TRUE(outcome.diverged.empty());
}

TEST_F(SweepRunnerTest, UnfinishedRunWithACheckpointIsResumedOthersStartOver) {
  const auto runs = plan("  seed: [0, 1]\n");
  // seed 0 was interrupted after a checkpoint; seed 1 before its first one.
  write_intact_checkpoint(run_path("a_seed=0") / "checkpoint.bin");
  write_file(run_path("a_seed=0") / "metrics.jsonl", "{}\n");
  write_file(run_path("a_seed=0") / "train.log", "first attempt\n");
  write_file(run_path("a_seed=1") / "metrics.jsonl", "{}\n");
  const SweepOutcome outcome = run(runs, {}, 1);
  EXPECT_EQ(outcome.completed.size(), 2u);

  const std::string resumed = read_file(run_path("a_seed=0") / "args.txt");
  EXPECT_NE(resumed.find(" --out " + run_path("a_seed=0").string() + " --resume " + run_path("a_seed=0").string()),
            std::string::npos)
      << resumed;
  EXPECT_EQ(resumed.find("--force"), std::string::npos) << resumed;
  EXPECT_TRUE(std::filesystem::exists(run_path("a_seed=0") / "checkpoint.bin"));  // its work is kept
  EXPECT_TRUE(std::filesystem::exists(run_path("a_seed=0") / "metrics.jsonl"));
  const std::string log = read_file(run_path("a_seed=0") / "train.log");
  EXPECT_EQ(log.rfind("first attempt\n", 0), 0u) << log;  // the log of the earlier attempt continues
  EXPECT_NE(log.find("fake train starting"), std::string::npos) << log;

  const std::string restarted = read_file(run_path("a_seed=1") / "args.txt");
  EXPECT_NE(restarted.find(" --out " + run_path("a_seed=1").string() + " --force"), std::string::npos) << restarted;
  EXPECT_EQ(restarted.find("--resume"), std::string::npos) << restarted;
  EXPECT_FALSE(std::filesystem::exists(run_path("a_seed=1") / "metrics.jsonl"));  // started over from scratch
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("a, seed=0 done in") != std::string::npos && l.find("resumed") != std::string::npos;
  })) << ::testing::PrintToString(lines);
}

}  // namespace
}  // namespace sinklab::sweep
