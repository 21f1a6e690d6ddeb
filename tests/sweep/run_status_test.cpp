#include "sweep/run_status.h"

#include <gtest/gtest.h>

#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::ScratchDir;
using testing::write_file;
using Clock = std::chrono::steady_clock;

TEST(LoggedStep, IsTheStepOfTheLastCompleteLine) {
  ScratchDir dir;
  EXPECT_EQ(logged_step(dir.path()), std::nullopt);  // no metrics.jsonl yet
  write_file(dir / "metrics.jsonl", "{\"step\": 0}\n{\"step\": 100}\n{\"step\": 2");  // the last is being written
  EXPECT_EQ(logged_step(dir.path()), 100);
  write_file(dir / "metrics.jsonl", "not json\n");
  EXPECT_EQ(logged_step(dir.path()), std::nullopt);  // a run is never failed for its log
}

// The status line reads the log through the metrics reader's bounded tail: a FIFO (no writer) or a
// device in its place shows no step, at once, instead of blocking compare.
TEST(LoggedStep, AFifoOrADeviceShowsNoStep) {
  ScratchDir dir;
  ASSERT_EQ(::mkfifo((dir / "metrics.jsonl").c_str(), 0600), 0);
  EXPECT_EQ(logged_step(dir.path()), std::nullopt);
  std::filesystem::remove(dir / "metrics.jsonl");
  std::filesystem::create_symlink("/dev/zero", dir / "metrics.jsonl");
  EXPECT_EQ(logged_step(dir.path()), std::nullopt);
}

TEST(SecondsLeft, FollowsThePaceSeenSoFar) {
  const Clock::time_point t0 = Clock::now();
  EXPECT_DOUBLE_EQ(*seconds_left(100, t0, 300, t0 + std::chrono::seconds(10), 1000), 35.0);
  EXPECT_EQ(seconds_left(100, t0, 100, t0 + std::chrono::seconds(10), 1000), std::nullopt);  // no pace yet
  EXPECT_EQ(seconds_left(100, t0, 300, t0 + std::chrono::seconds(10), 0), std::nullopt);     // no limit known
}

TEST(StatusLine, SaysFinishedOfTotalAndEachRunningRun) {
  EXPECT_EQ(format_status_line({{"a_seed=0", 1200, 5000, 125.0}, {"b_seed=0", std::nullopt, 5000, std::nullopt}}, 3, 8),
            "3/8 finished; running: a_seed=0 step 1200/5000 ETA 2m05s, b_seed=0 starting");
  EXPECT_EQ(format_status_line({{"a", 7, 0, 4000.0}}, 0, 1), "0/1 finished; running: a step 7 ETA 1h06m");
}

}  // namespace
}  // namespace sinklab::sweep
