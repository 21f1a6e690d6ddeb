// `sinklab inspect`: a finished run's model loads outside training, lists its parameters by name, and
// its re-evaluation equals the run's summary.json bit for bit (a vector task and a token task);
// a missing run is one clear error with exit status 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("sinklab_inspect_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

TEST(InspectCommand, ReEvaluatesAFinishedRunToTheSameBits) {
  const std::string source = SINKLAB_SOURCE_DIR;
  const struct {
    const char* config;
    const char* sets;
    const char* parameter;
  } runs[] = {
      {"configs/paper/2x2_relu.yaml",
       "--set train.max_steps=40 --set task.eval_samples=300 --set analysis.eval_attention_samples=300",
       "blocks.1.attn.w_o.weight"},
      {"configs/tasks/copy.yaml",
       "--set train.max_steps=60 --set task.eval_samples=300 --set analysis.eval_attention_samples=300",
       "embedding.weight"},
  };
  for (const auto& r : runs) {
    SCOPED_TRACE(r.config);
    const fs::path dir = fresh_dir("run");
    const testing::CliResult trained =
        testing::run_sinklab("train " + source + "/" + r.config + " " + r.sets + " --quiet --out " + dir.string());
    ASSERT_EQ(trained.exit_code, 0) << trained.output;
    const testing::CliResult inspected = testing::run_sinklab("inspect " + dir.string() + " --eval");
    EXPECT_EQ(inspected.exit_code, 0) << inspected.output;
    EXPECT_NE(inspected.output.find(r.parameter), std::string::npos) << inspected.output;
    EXPECT_NE(inspected.output.find("equals summary.json bit for bit"), std::string::npos) << inspected.output;
    // Another recorded number: the re-evaluation differs, and the exit status says so (2: the file is not
    // the run's, naming it and the field).
    nlohmann::json summary = nlohmann::json::parse(std::ifstream(dir / "summary.json"));
    const char* recorded = summary["eval_mse"].is_number() ? "eval_mse" : "eval_loss";  // an MSE or a token task
    summary[recorded] = summary[recorded].get<double>() * 2 + 1;
    std::ofstream(dir / "summary.json", std::ios::trunc) << summary.dump();
    const testing::CliResult differs = testing::run_sinklab("inspect " + dir.string() + " --eval");
    EXPECT_EQ(differs.exit_code, 2) << differs.output;
    EXPECT_NE(differs.output.find((dir / "summary.json").string() + ": differs from the re-evaluation"),
              std::string::npos)
        << differs.output;
    EXPECT_NE(differs.output.find(std::string(recorded) + ": recorded "), std::string::npos) << differs.output;
    fs::remove_all(dir);
  }
}

// A learned per-head scalar is small enough to be listed with its value (and sign): a sink logit
// started at -1.5 is still near -1.5 after one Adam step of 1e-3.
TEST(InspectCommand, ListsTheValuesOfLearnedPerHeadScalars) {
  const std::string source = SINKLAB_SOURCE_DIR;
  const fs::path dir = fresh_dir("sink_logit");
  const testing::CliResult trained = testing::run_sinklab(
      "train " + source + "/configs/paper/1x1_softmax.yaml --set model.attention.normalizer=sink_logit"
      " --set model.attention.normalizer.init_logit=-1.5 --set train.max_steps=1 --set task.eval_samples=50"
      " --set analysis.eval_attention_samples=50 --quiet --out " + dir.string());
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const testing::CliResult inspected = testing::run_sinklab("inspect " + dir.string());
  ASSERT_EQ(inspected.exit_code, 0) << inspected.output;
  const size_t at = inspected.output.find("blocks.0.attn.sink_logit");
  ASSERT_NE(at, std::string::npos) << inspected.output;
  const std::string line = inspected.output.substr(at, inspected.output.find('\n', at) - at);
  const double value = std::stod(line.substr(line.find_last_of(' ') + 1));
  EXPECT_NEAR(value, -1.5, 0.01) << line;
  fs::remove_all(dir);
}

TEST(InspectCommand, AMissingRunIsOneClearError) {
  const testing::CliResult r = testing::run_sinklab("inspect /nonexistent/sinklab_run");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("/nonexistent/sinklab_run: no such run folder or checkpoint file"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace sinklab
