// Malformed summary.json / metrics.jsonl found by fuzzing (tests/fuzz, docs/fuzzing.md): each must
// give one RunFileError naming the file, never another exception or undefined behaviour.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "run_files/run_summary.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::fresh_test_dir;
using sinklab::testing::write_text;

std::string summary_error(const std::filesystem::path& path) {
  try {
    read_run_summary(path);
  } catch (const RunFileError& e) {
    return e.what();
  }
  return "no error";
}

// nlohmann throws out_of_range, not parse_error, for a number too large for a double.
TEST(RunSummaryMalformed, NumberOverflowIsAFileError) {
  const auto dir = fresh_test_dir();
  write_text(dir / "summary.json", R"({"name": "a", "seed": 1e999})");
  const std::string error = summary_error(dir / "summary.json");
  EXPECT_NE(error.find("summary.json: invalid JSON"), std::string::npos) << error;
  EXPECT_NE(error.find("number overflow"), std::string::npos) << error;
}

TEST(MetricsMalformed, NumberOverflowIsAFileErrorWithTheLine) {
  const auto dir = fresh_test_dir();
  write_text(dir / "metrics.jsonl", "\n{\"step\": -1e400}\n");
  try {
    read_metrics(dir / "metrics.jsonl");
    FAIL();
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("metrics.jsonl:2: invalid JSON"), std::string::npos) << e.what();
  }
}
TEST(MetricsMalformed, ADeviceIsRefusedWithoutBeingRead) {
  try {
    read_metrics("/dev/zero");
    FAIL() << "/dev/zero read as a metrics log";
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("metrics log /dev/zero: is not a regular file"), std::string::npos)
        << e.what();
  }
}

// The expected head count in the message was an int product (signed overflow for large counts).
TEST(RunSummaryMalformed, HugeHeadCountsAreReportedWithoutOverflow) {
  const auto dir = fresh_test_dir();
  write_text(dir / "summary.json",
             R"({"name": "a", "seed": 0, "steps": 1, "stop_reason": "max_steps", "reached_stop_rule": false,
                 "train_loss": 0, "eval_mse": 0, "eval_max_abs_error": 0, "wall_seconds": 0, "normalizer": "relu",
                 "layers": 65536, "heads_per_layer": 65536, "seq_len": 16, "eval_trigger": 7, "sink_eps": 0.1,
                 "uniform_baseline": 0, "sink_rate": 0, "threads": 1, "git_revision": "x", "heads": []})");
  const std::string error = summary_error(dir / "summary.json");
  EXPECT_NE(error.find("expected layers * heads_per_layer = 4294967296"), std::string::npos) << error;
}

// Numbers no run writes: a negative squared error or step count would enter the report's means.
TEST(RunSummaryMalformed, NegativeErrorsLossesAndStepsAreFileErrors) {
  const auto dir = fresh_test_dir();
  const auto with = [](const std::string& field, const std::string& value) {
    nlohmann::json j = nlohmann::json::parse(
        R"({"name": "a", "seed": 0, "steps": 1, "stop_reason": "max_steps", "reached_stop_rule": false,
            "train_loss": 0, "eval_mse": 0, "eval_max_abs_error": 0, "wall_seconds": 0, "normalizer": "relu",
            "layers": 1, "heads_per_layer": 1, "seq_len": 16, "eval_trigger": 7, "sink_eps": 0.1,
            "uniform_baseline": 0, "sink_rate": 0, "threads": 1, "git_revision": "x", "heads": []})");
    j[field] = nlohmann::json::parse(value);
    return j.dump();
  };
  for (const char* field : {"eval_mse", "eval_max_abs_error", "train_loss", "steps"}) {
    write_text(dir / "summary.json", with(field, "-1"));
    const std::string error = summary_error(dir / "summary.json");
    EXPECT_NE(error.find(std::string(field) + ": -1"), std::string::npos) << error;
    EXPECT_NE(error.find("is negative"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace sinklab
