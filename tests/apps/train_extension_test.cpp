// Training a finished run longer (`train --resume RUN --set train.max_steps=N`) gives the bits of a run
// trained for N steps from the start, or says why it cannot; `--skip-finished` makes rerunning a finished
// training a success. Through the binary, as a user runs it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_process.h"
#include "tests/support/test_dir.h"
#include "tests/support/run_files_without_timing.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using testing::fresh_test_dir;
using testing::read_text;
using testing::run_sinklab;

// Log every 7 steps, so the last step of a 30-step run (29) is logged only for being the last.
constexpr const char* kConfig =
    "model: {layers: 1, heads: 1}\n"
    "optimizer: {lr: 1.0e-3, schedule: warmup, warmup_steps: 5}\n"
    "train: {batch_size: 8, max_steps: 30, log_every: 7, eval_every: 10, checkpoint_every: 0, stop_max_abs_error: 0}\n"
    "task: {eval_samples: 16}\n"
    "analysis: {eval_attention_samples: 16, snapshot_every: 4, snapshot_limit: 6}\n";

// (The straight runs take --name c: a --set that changes the file would otherwise name them
// "c-max_steps=50", and the name is part of the config.)

// metrics.jsonl without the wall-clock speed, the one field that differs between two runs.
std::string metrics_without_speed(const fs::path& file) {
  std::istringstream in(read_text(file));
  std::string out;
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    j.erase("steps_per_second");
    out += j.dump() + "\n";
  }
  return out;
}

nlohmann::json summary_without_time(const fs::path& dir) {
  nlohmann::json j = nlohmann::json::parse(read_text(dir / "summary.json"));
  sinklab::testing::erase_clock_fields(j);
  return j;
}

class TrainExtension : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_test_dir();
    config_ = dir_ / "c.yaml";
    std::ofstream(config_) << kConfig;
  }
  testing::CliResult train(const std::string& args) { return run_sinklab("train " + args + " --quiet"); }
  // Every file that holds the run's numbers, against a run trained to the same max_steps from the start.
  void expect_same_run(const fs::path& extended, const fs::path& straight) {
    for (const char* file :
         {"checkpoint.bin", "config.yaml", "attention_snapshots.npz", "attention/layer0_head0_mean.npy"})
      EXPECT_EQ(read_text(extended / file), read_text(straight / file)) << file;
    EXPECT_EQ(metrics_without_speed(extended / "metrics.jsonl"), metrics_without_speed(straight / "metrics.jsonl"));
    EXPECT_EQ(summary_without_time(extended), summary_without_time(straight));
  }
  fs::path dir_, config_;
};

TEST_F(TrainExtension, AFinishedRunTrainedLongerIsTheLongerRun) {
  const fs::path run = dir_ / "run", straight = dir_ / "straight";
  ASSERT_EQ(train(config_.string() + " --out " + run.string()).exit_code, 0);
  const testing::CliResult r = train("--resume " + run.string() + " --set train.max_steps=50");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(train(config_.string() + " --set train.max_steps=50 --name c --out " + straight.string()).exit_code, 0);
  expect_same_run(run, straight);
  EXPECT_EQ(summary_without_time(run)["steps"], 50);
}

// A kill after the extension rewrote config.yaml but before its first checkpoint: the folder holds the
// longer config and the shorter run's last checkpoint, and a plain --resume finishes the longer run.
TEST_F(TrainExtension, AnExtensionKilledBeforeItsFirstCheckpointResumesPlainly) {
  const fs::path run = dir_ / "run", straight = dir_ / "straight";
  ASSERT_EQ(train(config_.string() + " --out " + run.string()).exit_code, 0);
  fs::remove(run / "summary.json");
  std::string config = read_text(run / "config.yaml");
  const size_t at = config.find("max_steps: 30");
  ASSERT_NE(at, std::string::npos) << config;
  config.replace(at, 13, "max_steps: 50");
  std::ofstream(run / "config.yaml") << config;
  const testing::CliResult r = train("--resume " + run.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(train(config_.string() + " --set train.max_steps=50 --name c --out " + straight.string()).exit_code, 0);
  expect_same_run(run, straight);
}

TEST_F(TrainExtension, WhatCannotBeExtendedIsRefusedWithTheReasonAndChangesNothing) {
  const fs::path cosine = dir_ / "cosine", stopped = dir_ / "stopped", plain = dir_ / "plain";
  const fs::path unfinished = dir_ / "unfinished";
  ASSERT_EQ(train(config_.string() + " --set optimizer.schedule=cosine --out " + cosine.string()).exit_code, 0);
  ASSERT_EQ(train(config_.string() + " --set train.stop_loss=1e9 --out " + stopped.string()).exit_code, 0);
  ASSERT_EQ(train(config_.string() + " --out " + plain.string()).exit_code, 0);
  ASSERT_EQ(train(config_.string() + " --out " + unfinished.string()).exit_code, 0);
  fs::remove(unfinished / "summary.json");
  const struct {
    fs::path run;
    std::string flags, says;
  } cases[] = {
      {cosine, "--set train.max_steps=50",
       "optimizer.schedule cosine decays the learning rate to min_lr at train.max_steps"},
      {stopped, "--set train.max_steps=50", "met its stop rule"},
      {plain, "--set train.max_steps=20", "can only be raised"},
      {plain, "--set train.max_steps=50 --set seed=4", "differ from the run's own"},
      {plain, "", "holds a finished run (summary.json); nothing to resume; to train it longer, raise train.max_steps"},
  };
  const testing::CliResult r = train("--resume " + unfinished.string() + " --set train.max_steps=50");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("holds an unfinished run; finish it first"), std::string::npos) << r.output;
  for (const auto& c : cases) {
    const std::string summary = read_text(c.run / "summary.json"), checkpoint = read_text(c.run / "checkpoint.bin");
    const testing::CliResult r = train("--resume " + c.run.string() + " " + c.flags);
    EXPECT_EQ(r.exit_code, 2) << c.flags << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.flags << "\n" << r.output;
    EXPECT_EQ(read_text(c.run / "summary.json"), summary) << c.flags;
    EXPECT_EQ(read_text(c.run / "checkpoint.bin"), checkpoint) << c.flags;
  }
}

TEST_F(TrainExtension, SkipFinishedAcceptsAFinishedRunOfTheSameConfigOnly) {
  const fs::path run = dir_ / "run";
  ASSERT_EQ(train(config_.string() + " --out " + run.string()).exit_code, 0);
  const std::string summary = read_text(run / "summary.json");
  const testing::CliResult again = train(config_.string() + " --out " + run.string());
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find("--skip-finished"), std::string::npos)
      << "the refusal names the way out: " << again.output;
  const testing::CliResult skipped = train(config_.string() + " --out " + run.string() + " --skip-finished");
  EXPECT_EQ(skipped.exit_code, 0) << skipped.output;
  EXPECT_EQ(skipped.output, run.string() +
                                " already holds a finished run of this config (summary.json); nothing to do "
                                "(--skip-finished)\n");
  const testing::CliResult resumed = train("--resume " + run.string() + " --skip-finished");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  const testing::CliResult other = train(config_.string() + " --set seed=7 --out " + run.string() + " --skip-finished");
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(
      other.output.find("holds a finished run of another config ('seed: 0' in the run, 'seed: 7' from the flags)"),
      std::string::npos)
      << other.output;
  EXPECT_EQ(train(config_.string() + " --out " + run.string() + " --skip-finished --force").exit_code, 2);
  EXPECT_EQ(read_text(run / "summary.json"), summary) << "nothing was trained";
}

}  // namespace
}  // namespace sinklab
