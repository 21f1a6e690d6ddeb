// `sinklab eval`: on short trained 1x1 runs (to the paper's stop rule), `--ablate none` reproduces the
// run's summary.json bit for bit; mask_bos_key wrecks the softmax model's non-trigger rows (the sink is
// needed) and leaves the relu model's (nearly) unchanged; the JSON file's layout and names; a head list,
// another sequence length; every user error is one clear message with exit status 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_process.h"
#include "tests/apps/json_file.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

using testing::read_json;

class EvalCommand : public ::testing::Test {
 protected:
  // Two runs trained once for the suite: 1x1 softmax and 1x1 relu, seed 0, to the stop rule.
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("sinklab_eval_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    const std::string source = SINKLAB_SOURCE_DIR;
    for (const char* name : {"softmax", "relu"}) {
      const testing::CliResult r = testing::run_sinklab("train " + source + "/configs/paper/1x1_" + name +
                                                        ".yaml --set train.max_steps=4000 --set task.eval_samples=300"
                                                        " --set analysis.eval_attention_samples=300 --quiet --out " +
                                                        (root_ / name).string());
      ASSERT_EQ(r.exit_code, 0) << r.output;
    }
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  static fs::path run(const char* name) { return root_ / name; }
  static fs::path root_;
};

fs::path EvalCommand::root_;

TEST_F(EvalCommand, NoneReproducesTheRunsOwnEvaluationBitForBit) {
  for (const char* name : {"softmax", "relu"}) {
    SCOPED_TRACE(name);
    const testing::CliResult r = testing::run_sinklab("eval " + run(name).string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json summary = read_json(run(name) / "summary.json");
    const nlohmann::json e = read_json(run(name) / "eval" / "none.json");
    ASSERT_TRUE(summary["eval_mse"].is_number());
    EXPECT_EQ(e["eval_mse"].get<double>(), summary["eval_mse"].get<double>());
    EXPECT_EQ(e["eval_max_abs_error"].get<double>(), summary["eval_max_abs_error"].get<double>());
    EXPECT_EQ(e["heads"][0]["bos_mass_nontrigger_mean"].get<double>(),
              summary["heads"][0]["bos_mass_nontrigger_mean"].get<double>());
    EXPECT_EQ(e["deltas"]["eval_mse"].get<double>(), 0.0);
    // The largest row error is the largest error.
    EXPECT_EQ(std::max(e["nontrigger_max_abs_error"].get<double>(), e["trigger_max_abs_error"].get<double>()),
              e["eval_max_abs_error"].get<double>());
  }
}

// The spec's ablation table, trained 1x1 softmax: mask_bos_key MSE in [0.05, 0.2], non-trigger error
// >= 0.9, the trigger row (which never attends to BOS) within 1e-3 of its unablated error.
TEST_F(EvalCommand, MaskingTheBosKeyBreaksTheSoftmaxModel) {
  const testing::CliResult r = testing::run_sinklab("eval " + run("softmax").string() + " --ablate mask_bos_key");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("eval_mse"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("L0H0"), std::string::npos) << r.output;
  const nlohmann::json e = read_json(run("softmax") / "eval" / "mask_bos_key.json");
  const nlohmann::json& base = e["unablated"];
  EXPECT_LT(base["eval_mse"].get<double>(), 1e-5);
  EXPECT_GE(e["eval_mse"].get<double>(), 0.05);
  EXPECT_LE(e["eval_mse"].get<double>(), 0.2);
  EXPECT_GE(e["nontrigger_max_abs_error"].get<double>(), 0.9);
  EXPECT_LE(e["trigger_max_abs_error"].get<double>(), base["trigger_max_abs_error"].get<double>() + 1e-3);
  EXPECT_GT(e["deltas"]["eval_mse_ratio"].get<double>(), 1e3);
  const nlohmann::json& head = e["heads"][0];
  EXPECT_TRUE(head["ablated"].get<bool>());
  EXPECT_EQ(head["bos_mass_nontrigger_mean"].get<double>(), 0.0);
  EXPECT_GE(base["heads"][0]["bos_mass_nontrigger_mean"].get<double>(), 0.99);
  EXPECT_LE(head["w_o_w_v_bos_inf"].get<double>(), 5e-3);
}

// zero_bos_weight removes mass that W_O W_V maps to ~0 anyway: the error stays small.
TEST_F(EvalCommand, ZeroingTheBosWeightOfTheSoftmaxModelCostsLittle) {
  const testing::CliResult r = testing::run_sinklab("eval " + run("softmax").string() + " --ablate zero_bos_weight");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json e = read_json(run("softmax") / "eval" / "zero_bos_weight.json");
  EXPECT_EQ(e["heads"][0]["bos_mass_nontrigger_mean"].get<double>(), 0.0);
  EXPECT_LE(e["eval_mse"].get<double>(), 2.0 * e["unablated"]["eval_mse"].get<double>());
}

// The relu model's non-trigger rows carry no mass: masking BOS changes them by at most 1e-3.
TEST_F(EvalCommand, MaskingTheBosKeyLeavesTheReluModelsNonTriggerRows) {
  for (const char* mode : {"mask_bos_key", "zero_bos_weight"}) {
    SCOPED_TRACE(mode);
    const testing::CliResult r = testing::run_sinklab("eval " + run("relu").string() + " --ablate " + mode);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json e = read_json(run("relu") / "eval" / (std::string(mode) + ".json"));
    EXPECT_LE(std::fabs(e["deltas"]["nontrigger_max_abs_error"].get<double>()), 1e-3);
    EXPECT_LT(e["nontrigger_max_abs_error"].get<double>(), 5e-3);
  }
}

TEST_F(EvalCommand, TheFileNamesTheModeHeadsAndEverythingItMeasured) {
  const fs::path out = root_ / "custom" / "out.json";
  const testing::CliResult r = testing::run_sinklab("eval " + (run("softmax") / "checkpoint.bin").string() +
                                                    " --ablate zero_bos_weight --heads L0H0 --samples 50 --out " +
                                                    out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json e = read_json(out);
  for (const char* key : {"command", "run", "checkpoint", "mode", "ablated_heads", "normalizer", "layers",
                          "heads_per_layer", "seq_len", "eval_trigger", "samples", "attention_samples", "sink_eps",
                          "eval_mse", "eval_max_abs_error", "nontrigger_max_abs_error", "trigger_max_abs_error",
                          "row_max_abs_error", "heads", "unablated", "deltas"})
    EXPECT_TRUE(e.contains(key)) << key;
  EXPECT_EQ(e["mode"], "zero_bos_weight");
  EXPECT_EQ(e["ablated_heads"], nlohmann::json::array({"L0H0"}));
  EXPECT_EQ(e["samples"], 50);
  EXPECT_EQ(e["eval_trigger"], 7);
  EXPECT_EQ(e["row_max_abs_error"].size(), 16u);
  EXPECT_EQ(e["heads"].size(), 1u);
  for (const char* key : {"layer", "head", "ablated", "w_o_w_v_bos_inf", "bos_mass_by_row", "sink_score",
                          "trigger_bos", "bos_mass_nontrigger_mean"})
    EXPECT_TRUE(e["heads"][0].contains(key)) << key;
  for (const char* key : {"eval_mse", "eval_mse_ratio", "eval_max_abs_error", "nontrigger_max_abs_error",
                          "trigger_max_abs_error", "row_max_abs_error"})
    EXPECT_TRUE(e["deltas"].contains(key)) << key;
  // Without --out: RUN/eval/<mode>_<heads>[_j<J>][_T<T>][_n<N>].json
  const testing::CliResult named = testing::run_sinklab(
      "eval " + run("softmax").string() + " --ablate mask_bos_key --heads L0H0 --eval-trigger 3 --samples 40");
  ASSERT_EQ(named.exit_code, 0) << named.output;
  const nlohmann::json j3 = read_json(run("softmax") / "eval" / "mask_bos_key_L0H0_j3_n40.json");
  EXPECT_EQ(j3["eval_trigger"], 3);
  EXPECT_EQ(j3["samples"], 40);
}

// Longer sequences than trained: the model has no positions, so it runs at T = 32 as it is.
TEST_F(EvalCommand, EvaluatesAnotherSequenceLength) {
  const testing::CliResult r = testing::run_sinklab("eval " + run("relu").string() + " --seq-len 32 --samples 40");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json e = read_json(run("relu") / "eval" / "none_T32_n40.json");
  EXPECT_EQ(e["seq_len"], 32);
  EXPECT_EQ(e["row_max_abs_error"].size(), 32u);
  EXPECT_EQ(e["heads"][0]["bos_mass_by_row"].size(), 32u);
  EXPECT_TRUE(e["eval_mse"].is_number());
}

TEST_F(EvalCommand, UserErrorsAreOneClearMessageWithExitStatus2) {
  const std::string dir = run("softmax").string();
  const struct {
    std::string args, message;
  } cases[] = {
      {"eval " + dir + " --ablate mask_bos",
       "--ablate: unknown mode 'mask_bos' (one of: none, mask_bos_key, zero_bos_weight)"},
      {"eval " + dir + " --ablate mask_bos_key --heads L0H1",
       "--heads: L0H1 is not a head of this model (1 layer(s) x 1 head(s)"},
      {"eval " + dir + " --ablate mask_bos_key --heads L0,H1", "--heads: 'L0' is not a head"},
      {"eval " + dir + " --heads L0H0", "--ablate none ablates no head"},
      {"eval " + dir + " --eval-trigger 16",
       "cannot be evaluated with --eval-trigger 16: eval_trigger must be in 1 .. seq_len - 1 = 15"},
      {"eval " + dir + " --eval-trigger x", "--eval-trigger: expected a whole number"},
      {"eval " + dir + " --eval-trigger 0",
       "cannot be evaluated with --eval-trigger 0: task 'trigger_conditional' option 'eval_trigger' must be 1 .. "
       "seq_len - 1"},
      {"eval " + dir + " --seq-len 2", "cannot be evaluated with --seq-len 2: seq_len must be >= 3"},
      {"eval " + dir + " --seq-len 7",
       "cannot be evaluated with --seq-len 7: eval_trigger must be in 1 .. seq_len - 1 = 6, got 7"},
      {"eval " + dir + " --samples 0", "--samples: expected a whole number in 1 .."},
      {"eval /nonexistent/sinklab_run", "/nonexistent/sinklab_run: no such run folder or checkpoint file"},
      // Outputs never replace the run's own files; evaluations that cannot fit are refused up front.
      {"eval " + dir + " --out " + dir + "/checkpoint.bin",
       "--out: " + dir + "/checkpoint.bin is one of the run's own files"},
      {"eval " + dir + " --out " + dir + "/../softmax/summary.json", "is one of the run's own files"},
      {"eval " + dir + " --out " + dir + "/attention/layer0_head0_mean.npy", "is one of the run's own files"},
      {"eval " + dir + " --samples 1000000 --seq-len 65536", "lower --samples or --seq-len"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const testing::CliResult r = testing::run_sinklab(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("wrote"), std::string::npos) << r.output;
  }
  // Default outputs are not written through a link planted in place of the run's eval/ or export/.
  const fs::path elsewhere = fs::path(dir).parent_path() / "elsewhere";
  fs::create_directories(elsewhere);
  for (const char* folder : {"eval", "export"}) {
    fs::remove_all(fs::path(dir) / folder);
    fs::create_directory_symlink(elsewhere, fs::path(dir) / folder);
    const std::string flags = std::string(folder) == "export" ? " --format safetensors" : "";
    const testing::CliResult r = testing::run_sinklab(std::string(folder) + " " + dir + flags);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(std::string(folder) + " is a symbolic link"), std::string::npos) << r.output;
    fs::remove(fs::path(dir) / folder);
  }
  EXPECT_TRUE(fs::is_empty(elsewhere));
  fs::remove_all(elsewhere);
  const testing::CliResult intact = testing::run_sinklab("inspect " + dir + " --eval");
  EXPECT_EQ(intact.exit_code, 0) << "the run's files are intact: " << intact.output;
}

}  // namespace
}  // namespace sinklab
