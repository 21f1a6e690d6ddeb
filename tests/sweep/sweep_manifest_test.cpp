#include "sweep/sweep_manifest.h"

#include <gtest/gtest.h>

#include "sweep/sweep_error.h"
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
  EXPECT_EQ(manifest->at("title"), "demo");
  const auto& list = manifest->at("runs");
  ASSERT_EQ(list.size(), 8u);
  const auto& r = list[7];
  EXPECT_EQ(r.at("id"), "relu_lr=3e-4_seed=1");
  EXPECT_EQ(r.at("variant"), "relu, lr=3e-4");
  EXPECT_EQ(r.at("seed"), 1);
  EXPECT_EQ(r.at("dir"), "runs/relu_lr=3e-4_seed=1");
  EXPECT_EQ(r.at("overrides"),
            (nlohmann::json{{"model.attention.normalizer", "relu"}, {"seed", 1}, {"optimizer.lr", 3e-4}}));
  EXPECT_EQ(r.at("config"), std::filesystem::absolute(dir / "a.yaml").lexically_normal().string());
}

TEST(SweepManifest, RecordsClassAndPredictedOnlyWhenTheVariantGivesThem) {
  ScratchDir dir;
  write_file(dir / "a.yaml", "seed: 0\n");
  const SweepSpec spec = parse_sweep_spec(
      "base: a.yaml\nvariants:\n  - name: soft\n    class: S\n    predicted: BOS sink\n  - name: relu\n"
      "grid:\n  seed: [0, 1]\n",
      dir / "s.yaml");
  write_sweep_manifest(dir / "out", spec, expand_sweep(spec));
  const auto manifest = read_sweep_manifest(dir / "out");
  ASSERT_TRUE(manifest.has_value());
  const auto& runs = manifest->at("runs");
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[1].at("class"), "S");
  EXPECT_EQ(runs[1].at("predicted"), "BOS sink");
  EXPECT_FALSE(runs[2].contains("class"));
  EXPECT_FALSE(runs[2].contains("predicted"));
}

TEST(SweepManifest, AMistypedClassIsNamedWithItsField) {
  ScratchDir dir;
  write_file(dir / "out/sweep.json", R"({"name": "x", "runs": [{"id": "a", "variant": "a", "seed": 0, "dir": "runs/a",
      "overrides": {}, "config": "/c.yaml", "class": 5}]})");
  try {
    read_sweep_manifest(dir / "out");
    FAIL() << "a numeric class was accepted";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("runs[0].class"), std::string::npos) << e.what();
  }
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

TEST(SweepManifest, TheSameSweepInAnotherCheckoutIsNotChanged) {
  // Written by compare in /home/a/sinklab, resumed from a clone in /tmp/ci/sinklab.
  const nlohmann::json before = nlohmann::json::parse(R"({"source": "/home/a/sinklab/configs/sweeps/s.yaml", "runs": [
      {"id": "a", "overrides": {"seed": 0}, "config": "/home/a/sinklab/configs/lm/x.yaml"},
      {"id": "b", "overrides": {"seed": 1}, "config": "/home/a/sinklab/configs/lm/x.yaml"},
      {"id": "c", "overrides": {"seed": 2}, "config": "/home/a/sinklab/configs/lm/x.yaml"}]})");
  const nlohmann::json after = nlohmann::json::parse(R"({"source": "/tmp/ci/sinklab/configs/sweeps/s.yaml", "runs": [
      {"id": "a", "overrides": {"seed": 0}, "config": "/tmp/ci/sinklab/configs/lm/x.yaml"},
      {"id": "b", "overrides": {"seed": 1}, "config": "/tmp/ci/sinklab/configs/lm/y.yaml"},
      {"id": "c", "overrides": {"seed": 2}, "config": "/home/a/sinklab/configs/lm/x.yaml"}]})");
  // b names another config; c names the old checkout's file, not this one's.
  EXPECT_EQ(changed_runs(before, after), (std::vector<std::string>{"b", "c"}));
  // Without the old manifest's source the paths compare as written: a's and b's differ, c's is the same file.
  nlohmann::json no_source = before;
  no_source.erase("source");
  EXPECT_EQ(changed_runs(no_source, after), (std::vector<std::string>{"a", "b"}));
}


TEST(SweepManifest, MistypedFieldsAreNamedWithTheFile) {
  ScratchDir dir;
  const std::string good_run =
      R"({"id": "a", "variant": "a", "seed": 0, "dir": "runs/a", "overrides": {}, "config": "x.yaml"})";
  const std::pair<std::string, std::string> cases[] = {
      {R"({"name": "s", "runs": [{"id": 5, "variant": "a", "seed": 0, "dir": "runs/a", "overrides": {}, "config": "x"}]})",
       "runs[0].id: expected a string, got number 5"},
      {R"({"name": "s", "runs": [)" + good_run +
           R"(, {"id": "b", "variant": "b", "seed": 0, "dir": "runs/b", "overrides": {}, "config": 3}]})",
       "runs[1].config: expected a string"},
      {R"({"name": "s", "runs": [{"id": "a", "variant": "a", "seed": 0, "dir": "runs/a", "overrides": [], "config": "x"}]})",
       "runs[0].overrides: expected an object"},
      {R"({"name": "s", "runs": [{"id": "a", "variant": "a", "seed": "0", "dir": "runs/a", "overrides": {}, "config": "x"}]})",
       "runs[0].seed: expected"},
      {R"({"name": 1, "runs": []})", "name: expected a string"},
      {R"({"name": "s", "set": "a=1", "runs": []})", "set: expected an array"},
      {R"({"name": "s", "set": [3], "runs": []})", "set[0]: expected a string, got number"},
      {R"({"name": "s", "runs": {}})", "runs: expected an array"},
      {R"([1, 2])", "expected an object"},
      {R"({"name": "s", "runs": [)", "invalid JSON"},
  };
  for (const auto& [text, fragment] : cases) {
    write_file(dir / "out/sweep.json", text);
    try {
      read_sweep_manifest(dir / "out");
      ADD_FAILURE() << "expected SweepError for " << text;
    } catch (const SweepError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find((dir / "out/sweep.json").string()), std::string::npos) << what;
      EXPECT_NE(what.find(fragment), std::string::npos) << what;
    }
  }
  write_file(dir / "out/sweep.json", R"({"name": "s", "runs": [)" + good_run + "]}");
  EXPECT_TRUE(read_sweep_manifest(dir / "out").has_value());
  std::filesystem::remove(dir / "out/sweep.json");
  EXPECT_FALSE(read_sweep_manifest(dir / "out").has_value());  // no manifest yet: a new sweep
}

}  // namespace
}  // namespace sinklab::sweep
