// The ablations of the explicit constructions (constructions-spec section C): removing the BOS key
// from the softmax construction's rows gives MSE 0.1031 +- 0.003 and max error 1 (its no-op rows
// now average content); zeroing the BOS weight changes nothing (BOS's value is 0); the relu
// construction is bitwise unchanged by both (its BOS logit is 0).
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

nlohmann::json ablated(const fs::path& run, const std::string& mode) {
  const testing::CliResult r = testing::run_sinklab("eval " + run.string() + " --ablate " + mode);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(run / "eval" / (mode + ".json"));
  EXPECT_TRUE(in.good()) << mode;
  return in.good() ? nlohmann::json::parse(in) : nlohmann::json();
}

TEST(ConstructionAblations, ReproduceTheSpecsTable) {
  const std::string source = SINKLAB_SOURCE_DIR;
  const fs::path dir = fs::temp_directory_path() / ("sinklab_construct_ablation_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path softmax = dir / "softmax", relu = dir / "relu";
  for (const auto& [kind, out] : {std::pair{"softmax", softmax}, std::pair{"relu", relu}}) {
    const testing::CliResult r = testing::run_sinklab(std::string("construct ") + kind + " --config " + source +
                                                      "/configs/paper/1x1_" + kind + ".yaml --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  const nlohmann::json masked = ablated(softmax, "mask_bos_key");
  EXPECT_NEAR(masked["eval_mse"].get<double>(), 0.1031, 0.003);
  EXPECT_NEAR(masked["eval_max_abs_error"].get<double>(), 1.0, 1e-3);
  const nlohmann::json zeroed = ablated(softmax, "zero_bos_weight");
  EXPECT_EQ(zeroed["eval_mse"].get<double>(), zeroed["unablated"]["eval_mse"].get<double>());
  for (const char* mode : {"mask_bos_key", "zero_bos_weight"}) {
    const nlohmann::json r = ablated(relu, mode);
    EXPECT_EQ(r["eval_mse"].get<double>(), r["unablated"]["eval_mse"].get<double>()) << mode;
    EXPECT_EQ(r["eval_max_abs_error"].get<double>(), r["unablated"]["eval_max_abs_error"].get<double>()) << mode;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
