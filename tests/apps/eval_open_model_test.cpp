// `sinklab eval MODEL_DIR`: the run's analysis on a Hugging Face model folder (the tiny random Llama and
// GPT-NeoX fixtures), read from --tokens ids.npy or --text with a tokenizer.json; alpha_0 (Gu's Sink_k)
// of every head against the attention weights read directly from the model; --head-ablation, --stream;
// every user mistake is one message with exit status 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "core/observe/attention_observer.h"
#include "models/open_models/open_model_loader.h"
#include "models/token_windows.h"
#include "run_files/npy.h"
#include "tests/apps/cli_process.h"
#include "tests/apps/json_file.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

using testing::read_json;

const fs::path kFixtures = fs::path(SINKLAB_SOURCE_DIR) / "tests" / "fixtures" / "open_models";

// A BPE tokenizer.json with one token per character (no merges): <unk> 0, <s> 1 (BOS, put in front by
// its post-processor), then `chars` from id 2 on, or at `first_id` on when given (to go past a vocabulary).
std::string char_tokenizer_json(const std::string& chars, int first_id = 2) {
  nlohmann::json vocab = {{"<unk>", 0}, {"<s>", 1}};
  for (size_t i = 0; i < chars.size(); ++i) vocab[std::string(1, chars[i])] = first_id + static_cast<int>(i);
  const nlohmann::json bos = {{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}};
  const nlohmann::json a = {{"Sequence", {{"id", "A"}, {"type_id", 0}}}};
  const nlohmann::json b = {{"Sequence", {{"id", "B"}, {"type_id", 1}}}};
  const nlohmann::json j = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens",
       {{{"id", 1},
         {"content", "<s>"},
         {"single_word", false},
         {"lstrip", false},
         {"rstrip", false},
         {"normalized", false},
         {"special", true}}}},
      {"normalizer", nullptr},
      {"pre_tokenizer", nullptr},
      {"post_processor",
       {{"type", "TemplateProcessing"},
        {"single", {bos, a}},
        {"pair", {bos, a, b}},
        {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
      {"decoder", nullptr},
      {"model",
       {{"type", "BPE"},
        {"dropout", nullptr},
        {"unk_token", "<unk>"},
        {"continuing_subword_prefix", nullptr},
        {"end_of_word_suffix", nullptr},
        {"fuse_unk", false},
        {"byte_fallback", false},
        {"vocab", vocab},
        {"merges", nlohmann::json::array()}}},
  };
  return j.dump(1);
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Copies a fixture model folder (config.json and weights) into `to`.
fs::path copy_fixture(const std::string& family, const fs::path& to) {
  fs::create_directories(to);
  for (const fs::directory_entry& e : fs::directory_iterator(kFixtures / family))
    fs::copy_file(e.path(), to / e.path().filename(), fs::copy_options::overwrite_existing);
  return to;
}

class EvalOpenModel : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sinklab_eval_open_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  static std::string fixture(const std::string& family) { return (kFixtures / family).string(); }
  static std::string ids(const std::string& family) { return (kFixtures / family / "ids.npy").string(); }

  // The command's one error line and exit status 2.
  static void expect_user_error(const testing::CliResult& r, const std::string& says) {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("sinklab: error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
  }

  fs::path root_;
};

bool finite(const nlohmann::json& v) { return v.is_number() && std::isfinite(v.get<double>()); }

// Every head of an extreme-token measurement has finite alpha_0..3 and key/value numbers.
void expect_finite_heads(const nlohmann::json& m, int heads) {
  ASSERT_TRUE(m.is_object()) << m;
  ASSERT_EQ(static_cast<int>(m["heads"].size()), heads);
  EXPECT_TRUE(finite(m["uniform_baseline"]));
  for (const nlohmann::json& h : m["heads"]) {
    for (const nlohmann::json& a : h["alpha"]) EXPECT_TRUE(finite(a)) << h;
    EXPECT_TRUE(finite(h["value_drain"])) << h;
    EXPECT_TRUE(finite(h["key_cos_first"])) << h;
  }
}

TEST_F(EvalOpenModel, LlamaAndNeoxFromTokensWriteEveryMeasurementFinite) {
  for (const std::string family : {"llama", "gpt_neox"}) {
    SCOPED_TRACE(family);
    const fs::path out = root_ / (family + ".json");
    const testing::CliResult r =
        testing::run_sinklab("eval " + fixture(family) + " --tokens " + ids(family) +
                             " --seq-len 8 --windows 3 --head-ablation --threads 1 --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("uniform causal attention"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("put in front of every window"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("head ablation"), std::string::npos) << r.output;
    const nlohmann::json e = read_json(out);
    const nlohmann::json config = read_json(kFixtures / family / "config.json");
    const int layers = config["num_hidden_layers"].get<int>(), per_layer = config["num_attention_heads"].get<int>();
    EXPECT_EQ(e["model_type"], family);
    EXPECT_EQ(e["seq_len"], 8);
    EXPECT_EQ(e["windows"], 3);  // ids.npy holds 2 x 12 = 24 ids
    EXPECT_EQ(e["bos"], config["bos_token_id"]);
    EXPECT_EQ(e["layers"], layers);
    EXPECT_TRUE(finite(e["eval_loss"]));
    EXPECT_TRUE(finite(e["uniform_baseline"]));
    ASSERT_EQ(static_cast<int>(e["heads"].size()), layers * per_layer);
    for (const nlohmann::json& h : e["heads"]) EXPECT_TRUE(finite(h["sink_score"])) << h;
    expect_finite_heads(e["extreme_tokens"]["gu_bos"], layers * per_layer);
    expect_finite_heads(e["extreme_tokens"]["gu_no_bos"], layers * per_layer);
    ASSERT_FALSE(e["extreme_tokens"]["eval"]["layers"].empty());
    for (const nlohmann::json& l : e["extreme_tokens"]["eval"]["layers"]) EXPECT_TRUE(finite(l["massive_ratio"])) << l;
    // One row per head, sorted by the loss change, each a real change of the model's loss.
    const nlohmann::json& table = e["head_ablation"];
    ASSERT_EQ(static_cast<int>(table.size()), layers * per_layer);
    for (size_t i = 0; i < table.size(); ++i) {
      ASSERT_TRUE(finite(table[i]["delta_loss"])) << table[i];
      EXPECT_NEAR(table[i]["loss"].get<double>() - e["eval_loss"].get<double>(), table[i]["delta_loss"].get<double>(),
                  1e-9);
      if (i > 0) {
        EXPECT_GE(table[i - 1]["delta_loss"].get<double>(), table[i]["delta_loss"].get<double>());
      }
    }
  }
}

// Reads every layer's attention weights of one forward pass.
class WeightCapture final : public AttentionObserver {
 public:
  void on_attention(const AttentionView& v) override {
    for (int64_t h = 0; h < v.heads; ++h) {
      const float* a = v.weights_block(0, h);
      weights.emplace_back(a, a + v.seq_len * v.seq_len);
    }
  }
  std::vector<std::vector<float>> weights;  // layer-major, one [T, T] block per head
};

// Gu's alpha_0 of each head on one window, from the weights: mean over rows i of A[i, 0] / sum_j A[i, j].
std::vector<double> alpha0_by_hand(const fs::path& folder, const std::vector<int32_t>& window) {
  OpenModel m = load_open_model(folder);
  WeightCapture capture;
  const auto registration = m.model->transformer().observers().observe(capture);
  Graph g;
  NoGradGuard no_grad(g);
  const auto T = static_cast<int64_t>(window.size());
  m.model->transformer().forward_tokens(g, window.data(), 1, T);
  std::vector<double> alpha;
  for (const std::vector<float>& a : capture.weights) {
    double sum = 0.0;
    for (int64_t i = 0; i < T; ++i) {
      double row = 0.0;
      for (int64_t j = 0; j <= i; ++j) row += a[static_cast<size_t>(i * T + j)];
      sum += a[static_cast<size_t>(i * T)] / row;
    }
    alpha.push_back(sum / static_cast<double>(T));
  }
  return alpha;
}

TEST_F(EvalOpenModel, SinkAlphaOfEveryHeadIsTheFirstKeysShareOfTheWeights) {
  const fs::path out = root_ / "one.json";
  const int T = 10;
  const testing::CliResult r =
      testing::run_sinklab("eval " + fixture("llama") + " --tokens " + ids("llama") + " --seq-len " +
                           std::to_string(T) + " --windows 1 --threads 1 --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json e = read_json(out);
  const TokenWindows stream = read_token_windows(ids("llama"), 80, 1 << 20);
  const int32_t bos = e["bos"].get<int32_t>();
  std::vector<int32_t> packed(stream.ids.begin(), stream.ids.begin() + T);
  std::vector<int32_t> with_bos{bos};
  with_bos.insert(with_bos.end(), stream.ids.begin(), stream.ids.begin() + T - 1);
  for (const auto& [name, window] : {std::pair{"gu_no_bos", packed}, std::pair{"gu_bos", with_bos}}) {
    SCOPED_TRACE(name);
    const std::vector<double> alpha = alpha0_by_hand(kFixtures / "llama", window);
    const nlohmann::json& m = e["extreme_tokens"][name];
    ASSERT_EQ(alpha.size(), m["heads"].size());
    int sinks = 0;
    for (size_t h = 0; h < alpha.size(); ++h) {
      EXPECT_NEAR(m["heads"][h]["alpha"][0].get<double>(), alpha[h], 1e-5) << "head " << h;
      sinks += alpha[h] > e["sink_eps"].get<double>();
    }
    EXPECT_NEAR(m["sink_rate"][0].get<double>(), static_cast<double>(sinks) / static_cast<double>(alpha.size()), 1e-12);
  }
  // The evaluation's sink statistics read the BOS windows: a head's mean BOS mass is the same share.
  const std::vector<double> alpha = alpha0_by_hand(kFixtures / "llama", with_bos);
  for (size_t h = 0; h < alpha.size(); ++h)
    EXPECT_NEAR(e["heads"][h]["sink_score"].get<double>(), alpha[h], 1e-5) << "head " << h;
}

TEST_F(EvalOpenModel, TextIsTokenizedWithTheFoldersTokenizerAndBosComesFirst) {
  const fs::path model = copy_fixture("gpt_neox", root_ / "neox");
  write_text(model / "tokenizer.json", char_tokenizer_json("abcdefghijklmnopqrstuvwxyz .,"));
  const std::string text = "the quick brown fox jumps over the lazy dog, again and again. ";
  write_text(root_ / "text.txt", text);
  const testing::CliResult r = testing::run_sinklab_in(
      root_.string(), "eval " + model.string() + " --text text.txt --seq-len 16 --windows 2 --ablate mask_bos_key");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("BOS id 1 (the tokenizer)"), std::string::npos) << r.output;
  // The default output: eval-<folder>-<mode>.json in the current directory, nothing in the model folder.
  const nlohmann::json e = read_json(root_ / "eval-neox-mask_bos_key.json");
  EXPECT_EQ(e["text_tokens"], static_cast<int64_t>(text.size()));  // one token per character
  EXPECT_EQ(e["bos"], 1);
  EXPECT_EQ(e["windows"], 2);
  EXPECT_EQ(e["mode"], "mask_bos_key");
  EXPECT_TRUE(finite(e["eval_loss"]));
  EXPECT_TRUE(finite(e["unablated"]["eval_loss"]));
  // BOS masked: rows 1.. put no mass on it (row 0 sees only BOS and is left as it is).
  for (const nlohmann::json& h : e["heads"])
    for (size_t i = 1; i < h["bos_mass_by_row"].size(); ++i) EXPECT_EQ(h["bos_mass_by_row"][i].get<double>(), 0.0) << h;
  for (const fs::directory_entry& f : fs::directory_iterator(model))
    EXPECT_EQ(f.path().filename().string().rfind("eval", 0), std::string::npos) << f.path();
}

TEST_F(EvalOpenModel, StreamOnAModelFolderScoresEveryPair) {
  const fs::path out = root_ / "stream.json";
  const testing::CliResult r = testing::run_sinklab("eval " + fixture("llama") + " --stream --tokens " + ids("llama") +
                                                    " --window 8,16 --keep-first 0,1 --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json e = read_json(out);
  EXPECT_EQ(e["tokens"], 24);
  EXPECT_EQ(e["scored"], 24);  // BOS, then 24 ids: each predicts the next
  ASSERT_EQ(e["streaming"].size(), 4u);
  for (const nlohmann::json& row : e["streaming"]) EXPECT_TRUE(finite(row["loss"])) << row;
  EXPECT_TRUE(finite(e["dense"]["loss"]));
  expect_user_error(
      testing::run_sinklab("eval " + fixture("llama") + " --stream --tokens " + ids("llama") + " --window 65"),
      "--window 65 is longer than the model's context of 64");
}

TEST_F(EvalOpenModel, EveryMistakeIsOneMessageAndExitStatusTwo) {
  const std::string llama = fixture("llama");
  expect_user_error(testing::run_sinklab("eval " + (root_ / "missing").string() + " --tokens " + ids("llama")),
                    "no such run folder or checkpoint file, nor a model folder");
  fs::create_directories(root_ / "empty");
  expect_user_error(testing::run_sinklab("eval " + (root_ / "empty").string()),
                    "is neither a run folder nor a model folder");
  const fs::path unknown = copy_fixture("gpt_neox", root_ / "unknown");
  nlohmann::json config = read_json(unknown / "config.json");
  config["model_type"] = "gpt_neo_x";
  write_text(unknown / "config.json", config.dump());
  expect_user_error(testing::run_sinklab("eval " + unknown.string() + " --tokens " + ids("gpt_neox")),
                    "is not a family sinklab builds");
  expect_user_error(testing::run_sinklab("eval " + llama + " --tokens " + ids("llama") + " --seq-len 65"),
                    "--seq-len 65 is longer than the model's context of 64");
  expect_user_error(testing::run_sinklab("eval " + llama + " --tokens " + ids("llama") + " --seq-len 30"),
                    "the text has 24 tokens, fewer than one window of 30");
  expect_user_error(testing::run_sinklab("eval " + llama), "a model folder needs a text");
  // ids beyond the vocabulary of 64
  const std::vector<int64_t> big{3, 5, 64, 7};
  write_text(root_ / "big.npy", encode_npy_typed("<i8", big.data(), 8, big.size(), {4}, "big.npy"));
  expect_user_error(testing::run_sinklab("eval " + fixture("gpt_neox") + " --tokens " + (root_ / "big.npy").string()),
                    "outside the vocabulary [0, 64)");
  write_text(root_ / "text.txt", "abc");
  expect_user_error(testing::run_sinklab("eval " + llama + " --text " + (root_ / "text.txt").string()),
                    "--text needs the model's tokenizer.json");
  // A tokenizer that is not the model's (ids past its 80 tokens), and a text with no token.
  const fs::path model = copy_fixture("llama", root_ / "llama");
  write_text(model / "tokenizer.json", char_tokenizer_json("abc", 100));
  expect_user_error(testing::run_sinklab("eval " + model.string() + " --text " + (root_ / "text.txt").string()),
                    "outside the model's vocabulary [0, 80)");
  write_text(root_ / "empty.txt", "");
  expect_user_error(testing::run_sinklab("eval " + model.string() + " --text " + (root_ / "empty.txt").string()),
                    "tokenizes to nothing");
  expect_user_error(testing::run_sinklab("eval " + llama + " --tokens " + ids("llama") + " --out " + llama + "/x.json"),
                    "inside the model folder");
  expect_user_error(testing::run_sinklab("eval " + llama + " --tokens " + ids("llama") + " --samples 3"),
                    "--samples applies to a run");
}

}  // namespace
}  // namespace sinklab
