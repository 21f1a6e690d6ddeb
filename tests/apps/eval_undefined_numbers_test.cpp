// Numbers a task or a model does not define are printed as such, never as "nan" or a made-up 0:
// `eval --ablate` shows the metrics of the task's own loss (an MSE task has no eval_loss row), and the
// massive-activation ratio of a model whose median |h| is 0 (the relu construction) is "n/a" in the
// table and null in the JSON.
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

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("sinklab_eval_undefined_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

// The summary table's metric rows, from the line after its header to the blank line before the heads.
std::string metric_rows(const std::string& output) {
  const size_t header = output.find("unablated");
  const size_t begin = output.find('\n', header) + 1;
  return output.substr(begin, output.find("\n\n", begin) - begin);
}

TEST(EvalUndefinedNumbers, AblationRowsAreTheTasksOwnMetrics) {
  const std::string source = SINKLAB_SOURCE_DIR;
  const struct {
    const char* config;
    const char* defined;
    const char* undefined;
  } runs[] = {{"configs/paper/1x1_softmax.yaml", "eval_mse", "eval_loss"},
              {"configs/tasks/copy.yaml", "eval_loss (nats)", "eval_mse"}};
  for (const auto& r : runs) {
    SCOPED_TRACE(r.config);
    const fs::path dir = fresh_dir("ablate");
    const testing::CliResult trained = testing::run_sinklab("train " + source + "/" + r.config +
                                                            " --set train.max_steps=3 --set task.eval_samples=50"
                                                            " --set analysis.eval_attention_samples=50 --quiet --out " +
                                                            dir.string());
    ASSERT_EQ(trained.exit_code, 0) << trained.output;
    const testing::CliResult e =
        testing::run_sinklab("eval " + dir.string() + " --ablate mask_bos_key --out " + (dir.string() + ".json"));
    ASSERT_EQ(e.exit_code, 0) << e.output;
    const std::string rows = metric_rows(e.output);
    EXPECT_TRUE(contains(rows, r.defined)) << rows;
    EXPECT_FALSE(contains(rows, r.undefined)) << rows;
    EXPECT_FALSE(contains(e.output, "nan")) << e.output;
    fs::remove_all(dir);
    fs::remove(dir.string() + ".json");
  }
}

TEST(EvalUndefinedNumbers, AMassiveRatioOverAZeroMedianIsNotAvailable) {
  const fs::path dir = fresh_dir("relu");
  const fs::path out = dir.string() + ".json";
  const testing::CliResult built = testing::run_sinklab_in(SINKLAB_SOURCE_DIR, "construct relu --out " + dir.string());
  ASSERT_EQ(built.exit_code, 0) << built.output;
  const testing::CliResult e = testing::run_sinklab("eval " + dir.string() + " --out " + out.string());
  ASSERT_EQ(e.exit_code, 0) << e.output;
  const size_t header = e.output.find("layer  massive");
  ASSERT_NE(header, std::string::npos) << e.output;
  const size_t begin = e.output.find('\n', header) + 1;
  const std::string layer0 = e.output.substr(begin, e.output.find('\n', begin) - begin);
  EXPECT_TRUE(contains(layer0, "n/a")) << layer0;
  EXPECT_FALSE(contains(layer0, " 0.0 ")) << layer0;
  EXPECT_TRUE(contains(e.output, "(n/a: the median |h| is 0")) << e.output;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(out));
  const nlohmann::json& layer = j["extreme_tokens"]["eval"]["layers"][0];
  EXPECT_TRUE(layer["median_abs"] == 0.0) << layer.dump();
  EXPECT_TRUE(layer["massive_ratio"].is_null()) << layer.dump();
  fs::remove_all(dir);
  fs::remove(out);
}

}  // namespace
}  // namespace sinklab
