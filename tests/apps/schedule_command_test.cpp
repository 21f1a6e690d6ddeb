// `sinklab schedule`: the simulated schedule of `compare --mpi` from a sweep's measured run times.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/apps/cli_process.h"

namespace {

namespace fs = std::filesystem;
using sinklab::testing::run_sinklab;

class ScheduleCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sinklab_schedule_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

const std::string kSmoke = std::string(SINKLAB_SOURCE_DIR) + "/configs/sweeps/smoke.yaml";

TEST_F(ScheduleCommand, MeasuredTimesGiveOneRowPerRankCount) {
  const auto sweep = run_sinklab("compare " + kSmoke + " --jobs 2 --out " + (dir_ / "smoke").string());
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  const auto r = run_sinklab("schedule " + kSmoke + " --times " + (dir_ / "smoke").string() + " --ranks 2,3,9");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 runs, 4 measured"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("estimates:"), std::string::npos) << r.output;
  // One worker runs everything in turn: its makespan is the ideal.
  EXPECT_NE(r.output.find("| 2 | 1 | "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" | 1.00 | "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| 3 | 2 | "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| 9 | 8 | "), std::string::npos) << r.output;
}

TEST_F(ScheduleCommand, UnmeasuredRunsAreEstimatedFromAFittedTimePerStep) {
  const auto sweep = run_sinklab("compare " + kSmoke + " --jobs 2 --out " + (dir_ / "smoke").string());
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  const auto r = run_sinklab("schedule " + kSmoke + " --times " + (dir_ / "empty").string() + " --fit " +
                             (dir_ / "smoke").string() + " --ranks 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 runs, 0 measured"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fitted on the 4 finished runs"), std::string::npos) << r.output;
}

TEST_F(ScheduleCommand, NoTimesAndNothingToFitFromIsOneClearError) {
  const auto r = run_sinklab("schedule " + kSmoke + " --times " + (dir_ / "nothing").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("has no finished run to fit a time per step from (--fit DIR)"), std::string::npos)
      << r.output;
}

}  // namespace
