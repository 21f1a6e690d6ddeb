// `sinklab inspect RUN --eval` evaluates through the trainer's evaluation pipeline: a run trained with
// task.eval_seq_len is re-evaluated at that length and agrees with its summary.json bit for bit, and a
// summary.json that the re-evaluation does not reproduce is exit status 2, naming the file and fields.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// One short run of configs/paper/1x1_softmax.yaml evaluated at length 32 (trained at 16), shared by the
// tests of this suite.
class InspectEval : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_ = new fs::path(fs::temp_directory_path() / ("sinklab_inspect_eval_" + std::to_string(::getpid())));
    fs::remove_all(*run_);
    trained_ = new testing::CliResult(testing::run_sinklab("train " + std::string(SINKLAB_SOURCE_DIR) +
                                                           "/configs/paper/1x1_softmax.yaml --set task.eval_seq_len=32"
                                                           " --set train.max_steps=5 --set task.eval_samples=200 --set "
                                                           "analysis.eval_attention_samples=200 --quiet --out " +
                                                           run_->string()));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*run_);
    delete run_;
    delete trained_;
  }
  void SetUp() override { ASSERT_EQ(trained_->exit_code, 0) << trained_->output; }

  // summary.json with `change` applied, for one test; the original is put back after it.
  void tamper(const std::function<void(nlohmann::json&)>& change) {
    original_ = nlohmann::json::parse(std::ifstream(*run_ / "summary.json"));
    nlohmann::json changed = original_;
    change(changed);
    std::ofstream(*run_ / "summary.json", std::ios::trunc) << changed.dump(2);
  }
  void TearDown() override {
    if (!original_.is_null()) std::ofstream(*run_ / "summary.json", std::ios::trunc) << original_.dump(2);
  }

  inline static fs::path* run_ = nullptr;
  inline static testing::CliResult* trained_ = nullptr;
  nlohmann::json original_;
};

TEST_F(InspectEval, AgreesWithTheSummaryOfARunEvaluatedAtAnotherLength) {
  const nlohmann::json summary = nlohmann::json::parse(std::ifstream(*run_ / "summary.json"));
  ASSERT_EQ(summary["seq_len"], 32);  // the evaluation's length, not training's 16
  const testing::CliResult r = testing::run_sinklab("inspect " + run_->string() + " --eval");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "equals summary.json bit for bit")) << r.output;
  EXPECT_TRUE(contains(r.output, "T = 32")) << r.output;  // the head table's line names the evaluation length
}

TEST_F(InspectEval, ATamperedNumberIsExitStatus2NamingTheFileAndTheField) {
  tamper([](nlohmann::json& s) { s["eval_mse"] = s["eval_mse"].get<double>() * 2 + 1; });
  const testing::CliResult r = testing::run_sinklab("inspect " + run_->string() + " --eval");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, (*run_ / "summary.json").string() + ": differs from the re-evaluation")) << r.output;
  EXPECT_TRUE(contains(r.output, "eval_mse: recorded ")) << r.output;
  EXPECT_FALSE(contains(r.output, "eval_max_abs_error: recorded")) << r.output;  // only what was changed
}

TEST_F(InspectEval, ATamperedHeadStatisticIsNamedWithItsHead) {
  tamper([](nlohmann::json& s) { s["heads"][0]["sink_score"] = 0.5; });
  const testing::CliResult r = testing::run_sinklab("inspect " + run_->string() + " --eval");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "heads[0].sink_score: recorded 0.5, re-evaluated ")) << r.output;
}

// A summary of another evaluation set (another trigger position) is named by the field that says so.
TEST_F(InspectEval, ASummaryOfAnotherEvaluationSetIsNamedByItsField) {
  tamper([](nlohmann::json& s) { s["eval_trigger"] = 3; });
  const testing::CliResult r = testing::run_sinklab("inspect " + run_->string() + " --eval");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "eval_trigger: recorded 3, re-evaluated 7")) << r.output;
}

// Numbers of a file written by an older sinklab that lacks them are not compared.
TEST_F(InspectEval, AFieldTheFileDoesNotHaveIsNotCompared) {
  tamper([](nlohmann::json& s) { s.erase("extreme_tokens"); });
  const testing::CliResult r = testing::run_sinklab("inspect " + run_->string() + " --eval");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "equals summary.json bit for bit")) << r.output;
}

}  // namespace
}  // namespace sinklab
