#include "sweep/train_arguments.h"

#include <gtest/gtest.h>

#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::ScratchDir;
using testing::write_file;

class TrainArgumentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run.id = "a_seed=1";
    run.config = "configs/a.yaml";
    run.overrides = {{"seed", "1", 3}, {"optimizer.lr", "1e-3", 4}};
  }
  std::vector<std::string> base(const std::filesystem::path& out) {
    return {"train", "configs/a.yaml", "--set", "seed=1", "--set", "optimizer.lr=1e-3", "--out", out.string()};
  }
  ScratchDir dir;
  PlannedRun run;
};

TEST_F(TrainArgumentsTest, AMissingOrEmptyFolderStartsFresh) {
  EXPECT_EQ(choose_run_start(dir / "missing"), RunStart::fresh);
  std::filesystem::create_directories(dir / "empty");
  EXPECT_EQ(choose_run_start(dir / "empty"), RunStart::fresh);
  EXPECT_EQ(train_arguments(run, dir / "missing", 1, RunStart::fresh), base(dir / "missing"));
}

TEST_F(TrainArgumentsTest, AFolderWithACheckpointIsResumedFromIt) {
  write_file(dir / "run/checkpoint.bin", "x");
  write_file(dir / "run/metrics.jsonl", "{}\n");
  EXPECT_EQ(choose_run_start(dir / "run"), RunStart::resume);
  auto expected = base(dir / "run");
  expected.insert(expected.end(), {"--resume", (dir / "run").string()});
  EXPECT_EQ(train_arguments(run, dir / "run", 1, RunStart::resume), expected);
}

TEST_F(TrainArgumentsTest, LeftoversWithoutACheckpointStartOverWithForce) {
  write_file(dir / "run/metrics.jsonl", "{}\n");
  EXPECT_EQ(choose_run_start(dir / "run"), RunStart::start_over);
  auto expected = base(dir / "run");
  expected.insert(expected.end(), {"--force", "--threads", "1"});
  EXPECT_EQ(train_arguments(run, dir / "run", 4, RunStart::start_over), expected);
}

TEST_F(TrainArgumentsTest, ADirectoryNamedLikeTheCheckpointIsNotOne) {
  std::filesystem::create_directories(dir / "run/checkpoint.bin");
  EXPECT_EQ(choose_run_start(dir / "run"), RunStart::start_over);
}

}  // namespace
}  // namespace sinklab::sweep
