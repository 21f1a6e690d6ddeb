// `sinklab eval RUN --stream` on the ci_tiny language model (rope): stream.json holds the documented
// keys (the run, the stream, the dense baseline, one row per pair K < W), the terminal gets the markdown
// table, --out moves the JSON and the figure; a learned-position run refuses a window past its trained
// context; every user error is one message with exit status 2 and writes nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "report/gnuplot_runner.h"
#include "tests/apps/ci_tiny_run.h"
#include "tests/apps/cli_process.h"
#include "tests/apps/json_file.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

using testing::read_json;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using EvalStreamCommand = testing::CiTinyRun;

TEST_F(EvalStreamCommand, WritesTheDocumentedJsonAndPrintsTheTable) {
  const testing::CliResult r =
      testing::run_sinklab("eval " + run_->string() + " --stream --window 40,16 --keep-first 4,0,1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "| W | K | loss (nats/token) | perplexity | loss at t >= W | tokens scored |"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "| dense (windows of 64) | - |")) << r.output;

  const nlohmann::json j = read_json(*run_ / "eval" / "stream.json");
  for (const char* key : {"command", "run", "checkpoint", "normalizer", "positional", "seq_len", "trained_context",
                          "bos", "tokens", "scored", "dense", "streaming", "figure"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["run"], run_->string());
  EXPECT_EQ(j["normalizer"], "softmax");
  EXPECT_EQ(j["positional"], "rope");
  EXPECT_EQ(j["seq_len"], 64);
  EXPECT_EQ(j["trained_context"], 63);
  EXPECT_EQ(j["bos"], true);
  EXPECT_EQ(j["tokens"], 256) << "default: 4 x task.seq_len (the excerpt's validation part holds 333)";
  EXPECT_EQ(j["scored"], 256);
  EXPECT_EQ(j["dense"]["window"], 64);
  EXPECT_EQ(j["dense"]["scored"], 256);
  EXPECT_NEAR(j["dense"]["perplexity"].get<double>(), std::exp(j["dense"]["loss"].get<double>()), 1e-9);

  ASSERT_EQ(j["streaming"].size(), 6u) << "every pair, W then K ascending";
  const int expected[6][2] = {{16, 0}, {16, 1}, {16, 4}, {40, 0}, {40, 1}, {40, 4}};
  for (int i = 0; i < 6; ++i) {
    const nlohmann::json& row = j["streaming"][static_cast<std::size_t>(i)];
    SCOPED_TRACE(row.dump());
    EXPECT_EQ(row["window"], expected[i][0]);
    EXPECT_EQ(row["keep_first"], expected[i][1]);
    EXPECT_EQ(row["scored"], 256);
    EXPECT_EQ(row["scored_past_window"], 256 - expected[i][0]);
    const double loss = row["loss"].get<double>(), past = row["loss_past_window"].get<double>();
    EXPECT_TRUE(loss > 0.0 && loss < std::log(64.0)) << "a trained model beats the uniform guess";
    EXPECT_NEAR(row["perplexity"].get<double>(), std::exp(loss), 1e-9);
    EXPECT_TRUE(std::isfinite(past));
  }
  // Positions t < W see the same tokens for every K: the K rows of a window differ only past it.
  const auto total = [&](int i) { return j["streaming"][static_cast<std::size_t>(i)]["loss"].get<double>() * 256; };
  const auto past = [&](int i, int w) {
    return j["streaming"][static_cast<std::size_t>(i)]["loss_past_window"].get<double>() * (256 - w);
  };
  EXPECT_NEAR(total(0) - past(0, 16), total(2) - past(2, 16), 1e-9);
  EXPECT_NE(j["streaming"][0]["loss"], j["streaming"][2]["loss"]);

  if (find_executable("gnuplot")) {
    EXPECT_EQ(j["figure"], (*run_ / "eval" / "stream.svg").string());
    EXPECT_TRUE(fs::exists(*run_ / "eval" / "stream.svg"));
  } else {
    EXPECT_TRUE(j["figure"].is_null());
    EXPECT_TRUE(contains(r.output, "gnuplot not found")) << r.output;
  }
  EXPECT_TRUE(fs::exists(*run_ / "eval" / "stream.gp"));
}

TEST_F(EvalStreamCommand, OutMovesTheJsonAndTheFigureAndRopeReadsPastItsTrainedContext) {
  const fs::path out = fs::path(::testing::TempDir()) / "sinklab_stream_out" / "long.json";
  fs::remove_all(out.parent_path());
  const testing::CliResult r = testing::run_sinklab(
      "eval " + run_->string() + " --stream --window 100 --keep-first 2 --tokens 300 --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = read_json(out);
  EXPECT_EQ(j["tokens"], 300);
  ASSERT_EQ(j["streaming"].size(), 1u);
  EXPECT_EQ(j["streaming"][0]["window"], 100);
  EXPECT_EQ(j["streaming"][0]["scored_past_window"], 200);
  EXPECT_TRUE(fs::exists(out.parent_path() / "long.gp"));
  EXPECT_TRUE(fs::exists(out.parent_path() / "long.dat"));
  fs::remove_all(out.parent_path());
}

TEST_F(EvalStreamCommand, WithoutGnuplotTheFigureIsLeftAsAScriptAndSaidSo) {
  const fs::path out = fs::path(::testing::TempDir()) / "sinklab_stream_no_gnuplot" / "stream.json";
  fs::remove_all(out.parent_path());
  const testing::CliResult r =
      testing::run_command("PATH=/nonexistent " + testing::sinklab_binary() + " eval " + run_->string() +
                           " --stream --window 16 --keep-first 0 --out " + out.string() + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "gnuplot not found: render with `gnuplot " + out.parent_path().string())) << r.output;
  EXPECT_TRUE(read_json(out)["figure"].is_null());
  EXPECT_TRUE(fs::exists(out.parent_path() / "stream.gp"));
  EXPECT_FALSE(fs::exists(out.parent_path() / "stream.svg"));
  fs::remove_all(out.parent_path());
}

TEST_F(EvalStreamCommand, UserErrorsAreOneClearMessageWithExitStatus2) {
  const std::string dir = run_->string();
  const fs::path learned = fs::path(::testing::TempDir()) / "sinklab_stream_learned";
  fs::remove_all(learned);
  const testing::CliResult trained = testing::run_sinklab_in(
      SINKLAB_SOURCE_DIR,
      "train configs/normlimits/ci_tiny.yaml --set model.positional=learned --set train.max_steps=12 --quiet --out " +
          learned.string());
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const fs::path copy = fs::path(::testing::TempDir()) / "sinklab_stream_copy";
  fs::remove_all(copy);
  const testing::CliResult copy_trained =
      testing::run_sinklab("train " + std::string(SINKLAB_SOURCE_DIR) +
                           "/configs/paper/1x1_softmax.yaml --set train.max_steps=2 --quiet --out " + copy.string());
  ASSERT_EQ(copy_trained.exit_code, 0) << copy_trained.output;

  const struct {
    std::string args, message;
  } cases[] = {
      {"eval " + dir + " --stream", "--stream needs --window W"},
      {"eval " + dir + " --stream --window 0", "--window: expected a whole number in 1 .."},
      {"eval " + dir + " --stream --window 32,x",
       "--window: expected a whole number in 1 .. 65536, got 'x' in the list '32,x'"},
      {"eval " + dir + " --stream --window 32 --keep-first -1", "--keep-first: expected a whole number in 0 .."},
      {"eval " + dir + " --stream --window 2,4 --keep-first 4,8", "every K is >= every window"},
      {"eval " + dir + " --stream --window 32 --tokens 334",
       "--tokens: 334 tokens is more than the validation part of task.corpus holds (333 tokens)"},
      {"eval " + dir + " --stream --window 32 --tokens 0", "--tokens: expected a whole number in 1 .."},
      {"eval " + dir + " --window 32", "--window belongs with --stream"},
      {"eval " + dir + " --keep-first 1", "--keep-first belongs with --stream"},
      {"eval " + dir + " --stream --window 32 --ablate mask_bos_key", "--ablate does not apply to --stream"},
      {"eval " + dir + " --stream --window 32 --seq-len 32", "--seq-len does not apply to --stream"},
      {"eval " + dir + " --stream --window 32 --out " + dir + "/summary.json", "is one of the run's own files"},
      {"eval " + learned.string() + " --stream --window 32,64",
       "--window: window 64 is longer than the 63 tokens this model was trained to predict from (learned positions"},
      {"eval " + copy.string() + " --stream --window 8", "streaming evaluation needs a text_lm run"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const testing::CliResult r = testing::run_sinklab(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, c.message)) << r.output;
    EXPECT_FALSE(contains(r.output, "wrote")) << r.output;
  }
  EXPECT_FALSE(fs::exists(learned / "eval" / "stream.json"));
  fs::remove_all(learned);
  fs::remove_all(copy);
}

}  // namespace
}  // namespace sinklab
