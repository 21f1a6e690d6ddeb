// `sinklab construct`: the explicit weights become a normal run folder (config.yaml, checkpoint.bin at
// step 0 without moments, run.json marked constructed, summary.json, attention maps) that `inspect
// --eval` re-evaluates to the same bits and `report` reads; the default base configs; a base config
// that cannot hold the construction, or a bad parameter, is exit 2 with the key named; an existing
// run is replaced only with --force.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_files/checkpoint.h"
#include "run_files/checkpoint_file.h"
#include "run_files/npy.h"
#include "tests/apps/cli_process.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::run_sinklab;

constexpr int kTrigger = 7, kSeqLen = 16;

std::string source(const std::string& relative) { return std::string(SINKLAB_SOURCE_DIR) + "/" + relative; }

nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(read_text(path)); }

// sinklab run from the repository root, where the default base configs are found.
testing::CliResult run_sinklab_in_source(const std::string& args) {
  return testing::run_sinklab_in(SINKLAB_SOURCE_DIR, args);
}

// What checkpoint.bin says about training (run_files/checkpoint_file.h, run_files/checkpoint.h): its
// format, the number of moment blocks in its table, and the steps its training state records.
struct CheckpointFacts {
  uint32_t format = 0, moments = 0;
  int64_t steps = -1, optimizer_steps = -1;
};

CheckpointFacts checkpoint_facts(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = 0;
  const auto get = [&]<typename T>(T& v) {
    std::memcpy(&v, bytes.data() + pos, sizeof(T));
    pos += sizeof(T);
  };
  CheckpointFacts f;
  pos = 8;  // after the magic
  get(f.format);
  pos = 60;  // the table
  uint32_t params = 0;
  get(params);
  for (uint32_t i = 0; i < params; ++i) {
    uint32_t name = 0, rank = 0;
    get(name);
    pos += name;
    get(rank);
    pos += 8 * rank;
  }
  get(f.moments);
  // The training state through the one reader of checkpoints (its size grew with the snapshot record).
  const TrainingState state = read_training_state(path);
  f.steps = state.step;
  f.optimizer_steps = state.optimizer_steps;
  return f;
}

TEST(ConstructCommand, ReluWritesARunFolderThatInspectAndReportRead) {
  const fs::path dir = testing::fresh_test_dir() / "relu";
  const testing::CliResult made =
      run_sinklab("construct relu --config " + source("configs/paper/1x1_relu.yaml") + " --out " + dir.string());
  ASSERT_EQ(made.exit_code, 0) << made.output;
  EXPECT_NE(made.output.find("run directory: " + dir.string()), std::string::npos) << made.output;

  const nlohmann::json run = read_json(dir / "run.json");
  EXPECT_EQ(run["constructed"], (nlohmann::json{{"kind", "relu"}, {"beta", 20.0}, {"c", 1.0}})) << run.dump();
  EXPECT_TRUE(run.contains("git_revision"));

  const nlohmann::json summary = read_json(dir / "summary.json");
  EXPECT_EQ(summary["stop_reason"], "constructed");
  EXPECT_EQ(summary["steps"], 0);
  EXPECT_EQ(summary["name"], "construct_relu_c1");
  EXPECT_TRUE(summary["train_loss"].is_null());  // nothing was trained
  EXPECT_LE(summary["eval_max_abs_error"].get<double>(), 2.4e-7);
  EXPECT_EQ(summary["heads"][0]["mass_nontrigger_mean"].get<double>(), 0.0);

  const CheckpointFacts ckpt = checkpoint_facts(dir / "checkpoint.bin");
  EXPECT_EQ(ckpt.format, kCheckpointFormat);  // what the writer writes (4 since XXH3)
  EXPECT_EQ(ckpt.moments, 0u);
  EXPECT_EQ(ckpt.steps, 0);
  EXPECT_EQ(ckpt.optimizer_steps, 0);
  EXPECT_NE(read_text(dir / "config.yaml").find("name: construct_relu_c1"), std::string::npos);

  // The saved mean map over the 1,000 evaluation inputs: non-trigger rows exactly 0, the trigger row
  // exactly 1/7 on keys 1..7.
  const NpyArray map = read_npy(dir / "attention" / "layer0_head0_mean.npy");
  ASSERT_EQ(map.shape, (std::vector<int64_t>{kSeqLen, kSeqLen}));
  for (int i = 1; i < kSeqLen; ++i)
    for (int k = 0; k < kSeqLen; ++k) {
      const float expected = i == kTrigger && k >= 1 && k <= kTrigger ? 1.0f / 7.0f : 0.0f;
      ASSERT_EQ(map.data[static_cast<size_t>(i * kSeqLen + k)], expected) << i << "," << k;
    }
  EXPECT_TRUE(fs::exists(dir / "attention" / "layer0_head0_std.npy"));
  EXPECT_TRUE(fs::exists(dir / "attention" / "layer0_head0_sample0.npy"));

  const testing::CliResult inspected = run_sinklab("inspect " + dir.string() + " --eval");
  EXPECT_EQ(inspected.exit_code, 0) << inspected.output;
  EXPECT_NE(inspected.output.find("equals summary.json bit for bit"), std::string::npos) << inspected.output;

  const testing::CliResult reported = run_sinklab("report " + dir.string() + " --no-render");
  EXPECT_EQ(reported.exit_code, 0) << reported.output;
  EXPECT_TRUE(fs::exists(dir / "report" / "index.html"));
  EXPECT_NE(read_text(dir / "report" / "summary.csv").find("constructed"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ConstructCommand, SoftmaxStackFromTheDefaultBaseHasOneSinkingHead) {
  const fs::path scratch = testing::fresh_test_dir(), dir = scratch / "stack";
  const testing::CliResult made =
      run_sinklab_in_source("construct softmax --beta 10 --layers 2 --heads 2 --out " + dir.string());
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const std::string config = read_text(dir / "config.yaml");
  EXPECT_NE(config.find("residual: true"), std::string::npos) << config;  // configs/paper/2x2_softmax.yaml
  const nlohmann::json summary = read_json(dir / "summary.json");
  EXPECT_EQ(summary["name"], "construct_softmax_beta10");
  EXPECT_NEAR(summary["eval_max_abs_error"].get<double>(), 6.352e-4, 0.01 * 6.352e-4);
  EXPECT_EQ(summary["sink_rate"].get<double>(), 0.25);
  ASSERT_EQ(summary["heads"].size(), 4u);
  EXPECT_NEAR(summary["heads"][0]["bos_mass_nontrigger_mean"].get<double>(), 0.999634, 1e-6);
  for (int h = 1; h < 4; ++h)
    EXPECT_NEAR(summary["heads"][h]["bos_mass_nontrigger_mean"].get<double>(), 0.161123, 1e-6) << h;
  for (const char* file : {"layer1_head1_mean.npy", "layer1_head1_sample0.npy"})
    EXPECT_TRUE(fs::exists(dir / "attention" / file));
  const testing::CliResult inspected = run_sinklab("inspect " + dir.string() + " --eval");
  EXPECT_NE(inspected.output.find("equals summary.json bit for bit"), std::string::npos) << inspected.output;
  // The head table fits 120 columns and names what --wide adds; --wide shows it.
  EXPECT_NE(made.output.find("(--wide adds: "), std::string::npos) << made.output;
  const testing::CliResult wide =
      run_sinklab_in_source("construct softmax --beta 10 --layers 2 --heads 2 --wide --force --out " + dir.string());
  ASSERT_EQ(wide.exit_code, 0) << wide.output;
  EXPECT_EQ(wide.output.find("(--wide adds: "), std::string::npos) << wide.output;

  // Without --layers the default base is the single layer without the residual stream.
  const fs::path single = scratch / "single";
  const testing::CliResult one = run_sinklab_in_source("construct softmax --out " + single.string());
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(read_text(single / "config.yaml").find("residual: false"), std::string::npos);
  EXPECT_EQ(read_json(single / "summary.json")["name"], "construct_softmax_beta20");
  fs::remove_all(scratch);
}

TEST(ConstructCommand, ABaseThatCannotHoldItIsExitTwoNamingTheKey) {
  const fs::path dir = testing::fresh_test_dir();
  const std::string softmax = read_text(source("configs/paper/1x1_softmax.yaml"));
  const std::string relu = read_text(source("configs/paper/1x1_relu.yaml"));
  const struct {
    const char* kind;
    const std::string* base;
    const char* from;
    const char* to;
    const char* key;
  } cases[] = {
      {"softmax", &softmax, "  d_model: 16", "  d_model: 32", "model.d_model: "},
      {"softmax", &softmax, "  head_dim: full", "  head_dim: 8", "model.head_dim: "},
      {"softmax", &softmax, "  norm: none", "  norm: layer_norm", "model.norm: "},
      {"relu", &relu, "  mlp_hidden: 0", "  mlp_hidden: 32", "model.mlp_hidden: "},
      {"softmax", &softmax, "  bias: false", "  bias: true", "model.bias: "},
      {"softmax", &softmax, "    scale: none", "    scale: inv_sqrt_head_dim", "model.attention.scale: "},
      {"relu", &relu, "  positional: none", "  positional: learned", "model.positional: "},
      {"softmax", &softmax, "  input: vectors", "  input: tokens", "model.input: "},
      {"relu", &relu, "  output_head: false", "  output_head: true", "model.output_head: "},
      {"relu", &relu, "divisor: visible_non_bos", "divisor: visible", "model.attention.normalizer.divisor: "},
      {"relu", &softmax, "", "", "model.attention.normalizer.name: "},
      {"softmax", &softmax, "  target: mean", "  target: residual", "task.target: "},
  };
  int n = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.key);
    std::string text = *c.base;
    if (c.from[0] != '\0') {
      const size_t at = text.find(c.from);
      ASSERT_NE(at, std::string::npos) << c.from;
      text.replace(at, std::strlen(c.from), c.to);
    }
    const fs::path base = dir / ("base" + std::to_string(n++) + ".yaml");
    testing::write_text(base, text);
    const fs::path out = dir / "out";
    const testing::CliResult r =
        run_sinklab("construct " + std::string(c.kind) + " --config " + base.string() + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(base.string()), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(c.key), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out)) << "nothing is written for a refused base";
  }
  // A stack needs the residual stream: the loader refuses it without, naming model.residual.
  const testing::CliResult stack =
      run_sinklab("construct softmax --config " + source("configs/paper/1x1_softmax.yaml") + " --layers 2 --out " +
                  (dir / "out").string());
  EXPECT_EQ(stack.exit_code, 2) << stack.output;
  EXPECT_NE(stack.output.find("model.residual: "), std::string::npos) << stack.output;
  // The loader's bounds on --layers / --heads, named as the flag the user typed.
  const testing::CliResult heads =
      run_sinklab("construct softmax --config " + source("configs/paper/1x1_softmax.yaml") + " --heads 100000 --out " +
                  (dir / "out").string());
  EXPECT_EQ(heads.exit_code, 2) << heads.output;
  EXPECT_NE(heads.output.find("--heads 100000: model.heads: "), std::string::npos) << heads.output;
  // Parameters, and a default base the working directory does not have.
  for (const char* bad : {"softmax --beta 0", "softmax --beta -3", "relu --c 0", "relu --c 1e-39"}) {
    const testing::CliResult r = run_sinklab(std::string("construct ") + bad + " --out " + (dir / "out").string());
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find(std::string(bad).find("--beta") != std::string::npos ? "--beta: " : "--c: "),
              std::string::npos)
        << r.output;
  }
  // A flag of the other kind is refused, not silently ignored.
  const testing::CliResult relu_beta = run_sinklab("construct relu --beta 5 --out " + (dir / "out").string());
  EXPECT_EQ(relu_beta.exit_code, 2) << relu_beta.output;
  EXPECT_NE(relu_beta.output.find("--beta: applies to `construct softmax` only"), std::string::npos)
      << relu_beta.output;
  const testing::CliResult softmax_c = run_sinklab("construct softmax --c 2 --out " + (dir / "out").string());
  EXPECT_EQ(softmax_c.exit_code, 2) << softmax_c.output;
  EXPECT_NE(softmax_c.output.find("--c: applies to `construct relu` only"), std::string::npos) << softmax_c.output;
  const testing::CliResult empty_beta = run_sinklab("construct softmax --beta '' --out " + (dir / "out").string());
  EXPECT_NE(empty_beta.exit_code, 0) << empty_beta.output;
  EXPECT_NE(empty_beta.output.find("--beta"), std::string::npos) << empty_beta.output;
  EXPECT_EQ(empty_beta.output.find("got 0"), std::string::npos) << "an empty value is not 0: " << empty_beta.output;
  const testing::CliResult elsewhere =
      run_sinklab("construct relu --out " + (dir / "out").string());  // cwd: the build tree
  EXPECT_EQ(elsewhere.exit_code, 2) << elsewhere.output;
  EXPECT_NE(elsewhere.output.find("--config configs/paper/1x1_relu.yaml: no such file"), std::string::npos)
      << elsewhere.output;
  EXPECT_NE(run_sinklab("construct sigmoid").exit_code, 0);
  fs::remove_all(dir);
}

TEST(ConstructCommand, AnExistingRunIsReplacedOnlyWithForce) {
  const fs::path dir = testing::fresh_test_dir() / "run";
  const std::string args =
      "construct relu --config " + source("configs/paper/1x1_relu.yaml") + " --out " + dir.string();
  ASSERT_EQ(run_sinklab(args).exit_code, 0);
  const testing::CliResult again = run_sinklab(args + " --c 2");
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find("already holds a finished run"), std::string::npos) << again.output;
  EXPECT_EQ(read_json(dir / "run.json")["constructed"]["c"], 1.0);
  const testing::CliResult forced = run_sinklab(args + " --c 2 --force");
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_EQ(read_json(dir / "run.json")["constructed"]["c"], 2.0);
  EXPECT_EQ(read_json(dir / "summary.json")["name"], "construct_relu_c2");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
