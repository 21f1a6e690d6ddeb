// `sinklab schedule`: the simulated schedule of `compare --mpi` from a sweep's measured run times.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

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

// The "estimates:" line's seconds per multiply-add.
double fitted_seconds_per_unit(const std::string& output) {
  const size_t at = output.find("estimates: ");
  if (at == std::string::npos) return -1.0;
  return std::stod(output.substr(at + 11));
}

// A run trained in pieces has only its last piece in summary.json's wall_seconds: the fit divides that
// time by the piece's steps, not the run's.
TEST_F(ScheduleCommand, ARunTrainedInPiecesIsTimedByItsLastPiecesSteps) {
  const fs::path out = dir_ / "smoke";
  const auto sweep = run_sinklab("compare " + kSmoke + " --jobs 2 --out " + out.string());
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  const std::string fit =
      "schedule " + kSmoke + " --times " + (dir_ / "empty").string() + " --fit " + out.string() + " --ranks 2";
  const auto whole = run_sinklab(fit);
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  // As if each run had been resumed halfway and its summary timed the second half only.
  for (const auto& run : fs::directory_iterator(out / "runs")) {
    const int64_t steps = nlohmann::json::parse(std::ifstream(run.path() / "summary.json"))["steps"];
    ASSERT_GE(steps, 10);
    nlohmann::json info = nlohmann::json::parse(std::ifstream(run.path() / "run.json"));
    info["resumed"] = nlohmann::json::array({{{"from_step", steps / 4}}, {{"from_step", steps / 2}}});
    std::ofstream(run.path() / "run.json") << info.dump();
  }
  const auto pieces = run_sinklab(fit);
  ASSERT_EQ(pieces.exit_code, 0) << pieces.output;
  const double ratio = fitted_seconds_per_unit(pieces.output) / fitted_seconds_per_unit(whole.output);
  EXPECT_GT(ratio, 1.8) << whole.output << pieces.output;  // steps / (steps - steps / 2), and %.3g's rounding
  EXPECT_LT(ratio, 2.05) << whole.output << pieces.output;
  const auto measured = run_sinklab("schedule " + kSmoke + " --times " + out.string() + " --ranks 2");
  ASSERT_EQ(measured.exit_code, 0) << measured.output;
  EXPECT_NE(measured.output.find("4 of the measured runs were trained in pieces"), std::string::npos)
      << measured.output;
}

// A run resumed at its last step (killed between its final checkpoint and its summary) has only its final
// evaluation timed: it is estimated, not measured at that time.
TEST_F(ScheduleCommand, ARunResumedAtItsLastStepIsEstimated) {
  const fs::path out = dir_ / "smoke", fit = dir_ / "fit";
  const auto sweep = run_sinklab("compare " + kSmoke + " --jobs 2 --out " + out.string());
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  fs::copy(out, fit, fs::copy_options::recursive);
  for (const auto& run : fs::directory_iterator(out / "runs")) {
    const int64_t steps = nlohmann::json::parse(std::ifstream(run.path() / "summary.json"))["steps"];
    nlohmann::json info = nlohmann::json::parse(std::ifstream(run.path() / "run.json"));
    info["resumed"] = nlohmann::json::array({{{"from_step", steps}}});
    std::ofstream(run.path() / "run.json") << info.dump();
  }
  const auto r =
      run_sinklab("schedule " + kSmoke + " --times " + out.string() + " --fit " + fit.string() + " --ranks 2");
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
