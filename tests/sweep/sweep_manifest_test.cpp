#include "sweep/sweep_manifest.h"

#include <gtest/gtest.h>

#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::ScratchDir;
using testing::write_file;

TEST(SweepManifest, TypedValuesKeepNumbersAndBooleans) {
  EXPECT_EQ(typed_value("3"), nlohmann::json(3));
  EXPECT_EQ(typed_value("3.0e-4"), nlohmann::json(3.0e-4));
  EXPECT_EQ(typed_value("true"), nlohmann::json(true));
  EXPECT_EQ(typed_value("relu"), nlohmann::json("relu"));
  EXPECT_EQ(typed_value("1e-3x"), nlohmann::json("1e-3x"));
}

TEST(SweepManifest, ListsEveryRunWithVariantSeedDirOverridesAndConfig) {
  ScratchDir dir;
  write_file(dir / "a.yaml", "seed: 0\n");
  const SweepSpec spec = parse_sweep_spec(
      "name: demo\nbase: a.yaml\n"
      "variants:\n  - name: soft\n  - name: relu\n    set: {model.attention.normalizer: relu}\n"
      "grid:\n  seed: [0, 1]\n  optimizer.lr: [1e-3, 3e-4]\n",
      dir / "s.yaml");
  const auto runs = expand_sweep(spec);
  write_sweep_manifest(dir / "out", spec, runs);
  const auto manifest = read_sweep_manifest(dir / "out");
  ASSERT_TRUE(manifest.has_value());
  EXPECT_FALSE(std::filesystem::exists(dir / "out/sweep.json.tmp"));
  EXPECT_EQ(manifest->at("name"), "demo");
  const auto& list = manifest->at("runs");
  ASSERT_EQ(list.size(), 8u);
  const auto& r = list[7];
  EXPECT_EQ(r.at("id"), "relu_lr=3e-4_seed=1");
  EXPECT_EQ(r.at("variant"), "relu lr=3e-4");
  EXPECT_EQ(r.at("seed"), 1);
  EXPECT_EQ(r.at("dir"), "runs/relu_lr=3e-4_seed=1");
  EXPECT_EQ(r.at("overrides"),
            (nlohmann::json{{"model.attention.normalizer", "relu"}, {"seed", 1}, {"optimizer.lr", 3e-4}}));
  EXPECT_EQ(r.at("config"), std::filesystem::absolute(dir / "a.yaml").lexically_normal().string());
}

TEST(SweepManifest, ChangedRunsAreThoseWhoseOverridesOrConfigMoved) {
  const nlohmann::json before = nlohmann::json::parse(R"({"runs": [
      {"id": "a", "overrides": {"seed": 0}, "config": "x.yaml"},
      {"id": "b", "overrides": {"seed": 1}, "config": "x.yaml"},
      {"id": "c", "overrides": {"seed": 2}, "config": "x.yaml"}]})");
  const nlohmann::json after = nlohmann::json::parse(R"({"runs": [
      {"id": "a", "overrides": {"seed": 0}, "config": "x.yaml"},
      {"id": "b", "overrides": {"seed": 1, "optimizer.lr": 0.1}, "config": "x.yaml"},
      {"id": "c", "overrides": {"seed": 2}, "config": "y.yaml"},
      {"id": "d", "overrides": {}, "config": "x.yaml"}]})");
  EXPECT_EQ(changed_runs(before, after), (std::vector<std::string>{"b", "c"}));
  EXPECT_TRUE(changed_runs(nlohmann::json::object(), after).empty());
}

}  // namespace
}  // namespace sinklab::sweep
