#include "run_files/metrics_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::fresh_test_dir;
using sinklab::testing::write_text;

MetricsRecord record_at(int64_t step) {
  MetricsRecord r;
  r.step = step;
  r.heads.resize(1);  // layer 0, head 0
  return r;
}

// A run still writing its log may have written half a line: read_complete_metrics leaves it out, read_metrics
// (a finished run's log) names it.
TEST(MetricsLog, CompleteLinesOnlyLeaveOutAHalfWrittenLastLine) {
  const auto dir = fresh_test_dir();
  {
    std::ofstream out(dir / "metrics.jsonl");
    write_metrics_line(out, record_at(0));
    write_metrics_line(out, record_at(10));
    out << "{\"step\": 20, \"heads\": [{\"bos";
  }
  const auto records = read_complete_metrics(dir / "metrics.jsonl");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].step, 10);
  try {
    read_metrics(dir / "metrics.jsonl");
    FAIL();
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("metrics.jsonl:3: invalid JSON"), std::string::npos) << e.what();
  }
  write_text(dir / "metrics.jsonl", "{\"step\": 0, \"he");
  EXPECT_TRUE(read_complete_metrics(dir / "metrics.jsonl").empty());
}

// A run killed after writing config.yaml and before creating its log (found by the concurrency stress
// test): still going or stopped, it has logged nothing; a finished run without its log is damaged.
TEST(MetricsLog, NoLogIsNoLineForARunStillGoingAndAnErrorForAFinishedOne) {
  const auto dir = fresh_test_dir();
  EXPECT_TRUE(read_complete_metrics(dir / "metrics.jsonl").empty());
  try {
    read_metrics(dir / "metrics.jsonl");
    FAIL();
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("metrics.jsonl: no such file"), std::string::npos) << e.what();
  }
}

// The log is read through core/io/file_read.h: a FIFO without a writer or a device is refused by name at
// once, never read until it ends.
TEST(MetricsLog, AFifoOrADeviceIsRefusedByName) {
  const auto dir = fresh_test_dir();
  const auto path = dir / "metrics.jsonl";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  for (const auto& read : {+[](const std::filesystem::path& p) { read_metrics(p); },
                           +[](const std::filesystem::path& p) { read_complete_metrics(p); }}) {
    try {
      read(path);
      FAIL();
    } catch (const RunFileError& e) {
      const std::string expected = "metrics log " + path.string() + ": is not a regular file";
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(last_logged_step(path), std::nullopt);
  std::filesystem::remove(path);
  std::filesystem::create_symlink("/dev/zero", path);
  EXPECT_THROW(read_metrics(path), RunFileError);
  EXPECT_EQ(last_logged_step(path), std::nullopt);
}

TEST(MetricsLog, LastLoggedStepIsThatOfTheLastCompleteLine) {
  const auto dir = fresh_test_dir();
  const auto path = dir / "metrics.jsonl";
  EXPECT_EQ(last_logged_step(path), std::nullopt);  // no log yet
  write_text(path, "{\"step\": 0}\n{\"step\": 100}\n{\"step\": 2");  // the last one is being written
  EXPECT_EQ(last_logged_step(path), 100);
  // Only the end of a long log is read: a first line far before it does not matter.
  write_text(path, "not json\n" + std::string(3 << 20, ' ') + "\n{\"step\": 7}\n");
  EXPECT_EQ(last_logged_step(path), 7);
  write_text(path, "{\"step\": \"seven\"}\n");
  EXPECT_EQ(last_logged_step(path), std::nullopt);
}

}  // namespace
}  // namespace sinklab
