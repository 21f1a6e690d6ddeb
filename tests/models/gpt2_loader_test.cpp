// GPT-2 weights in the Hugging Face layout (models/gpt2_loader.h) against a PyTorch GPT-2 written by
// hand (tools/write_gpt2_fixture.py, tests/fixtures/gpt2/): logits and the attention weights of every
// layer and head within 1e-5 of the fixture, relative to the tensor's largest magnitude (as the golden
// tests, docs/golden.md); both key layouts; where the heads come from; and one clear error naming the
// file and the tensor for each way a file can be broken (copies written under the test directory).
#include "models/gpt2_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/graph.h"
#include "core/io/file_read.h"
#include "models/token_windows.h"
#include "run_files/npy.h"
#include "run_files/safetensors_file.h"
#include "tests/support/golden_file.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace st = sinklab::testing;

const std::filesystem::path kFixtureDir = std::filesystem::path(SINKLAB_SOURCE_DIR) / "tests/fixtures/gpt2";
const std::filesystem::path kWeights = kFixtureDir / "model.safetensors";

// Collects the attention weights batch-major [B, H, T, T], layer by layer.
class WeightsObserver : public AttentionObserver {
 public:
  void on_attention(const AttentionView& v) override {
    std::vector<float>& w = layers.emplace_back();
    for (int64_t b = 0; b < v.batch; ++b)
      for (int64_t h = 0; h < v.heads; ++h)
        w.insert(w.end(), v.weights_block(b, h), v.weights_block(b, h) + v.seq_len * v.seq_len);
  }
  std::vector<std::vector<float>> layers;
};

struct Outputs {
  std::vector<float> logits;
  std::vector<std::vector<float>> probs;
};

Outputs run(Model& model, const TokenWindows& tokens) {
  WeightsObserver observer;
  auto registration = model.transformer().observers().observe(observer);
  Graph g;
  NoGradGuard no_grad(g);
  const Tensor logits = model.transformer().forward_tokens(g, tokens.ids.data(), tokens.windows, tokens.length);
  EXPECT_EQ(logits.shape(), (Shape{tokens.windows, tokens.length, model.shape().output_dim}));
  return {std::vector<float>(logits.data(), logits.data() + logits.numel()), observer.layers};
}

// max |got - want| <= tol * max |want|.
::testing::AssertionResult close(const std::vector<float>& got, const st::GoldenTensor& want, double tol) {
  if (got.size() != want.values.size())
    return ::testing::AssertionFailure() << got.size() << " values, the fixture has " << want.values.size();
  double scale = 0, worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, static_cast<double>(std::abs(want.values[i])));
    const double d = std::abs(static_cast<double>(got[i]) - want.values[i]);
    if (d > worst) worst = d, worst_at = i;
  }
  if (worst <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max |diff| " << worst << " at " << worst_at << " (got " << got[worst_at]
                                       << ", want " << want.values[worst_at] << "), allowed " << tol * scale;
}

void expect_matches_fixture(Model& model) {
  const st::GoldenFile expected = st::GoldenFile::load((kFixtureDir / "expected.bin").string());
  const TokenWindows tokens = read_token_windows(kFixtureDir / "ids.npy", 50, 16);
  ASSERT_EQ(tokens.windows, 2);
  ASSERT_EQ(tokens.length, 16);
  const Outputs out = run(model, tokens);
  EXPECT_TRUE(close(out.logits, expected.get("logits"), 1e-5)) << "logits";
  ASSERT_EQ(out.probs.size(), 2u);
  for (size_t l = 0; l < 2; ++l)
    EXPECT_TRUE(close(out.probs[l], expected.get("probs.layer" + std::to_string(l)), 1e-5))
        << "attention of layer " << l;
}

// The fixture's tensors (all F32), to write altered copies.
std::vector<NamedTensor> fixture_tensors() { return read_safetensors(kWeights).tensors; }

std::filesystem::path write_copy(const std::filesystem::path& dir, const std::vector<NamedTensor>& tensors,
                                 const std::string& name = "model.safetensors") {
  const std::filesystem::path path = dir / name;
  write_safetensors(path, tensors, {{"format", "pt"}});
  return path;
}

std::string load_error(const std::filesystem::path& path, Gpt2Options options = {}) {
  try {
    load_gpt2(path, options);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

void expect_error(const std::filesystem::path& path, const std::string& what, Gpt2Options options = {}) {
  const std::string error = load_error(path, options);
  EXPECT_NE(error.find(path.string()), std::string::npos) << "the message names the file: " << error;
  EXPECT_NE(error.find(what), std::string::npos) << "expected \"" << what << "\" in: " << error;
}

TEST(Gpt2Loader, MatchesPyTorchLogitsAndAttention) {
  const Gpt2Model gpt2 = load_gpt2(kWeights);
  EXPECT_EQ(gpt2.n_layer, 2);
  EXPECT_EQ(gpt2.n_head, 4);
  EXPECT_EQ(gpt2.heads_from, "config.json");
  EXPECT_EQ(gpt2.n_positions, 16);
  EXPECT_EQ(gpt2.vocab, 50);
  EXPECT_EQ(gpt2.d_model, 32);
  EXPECT_EQ(gpt2.mlp_hidden, 128);
  EXPECT_EQ(gpt2.model->config(), gpt2_run_config(32, 2, 4, 128, 16, 50));
  EXPECT_FALSE(gpt2.model->parameters().contains("output_head.weight")) << "the head is tied to wte";
  expect_matches_fixture(*gpt2.model);
}

TEST(Gpt2Loader, BareKeyLayoutWithoutConfigJsonNeedsTheHeads) {
  const auto dir = st::fresh_test_dir();
  std::vector<NamedTensor> tensors = fixture_tensors();
  for (NamedTensor& t : tensors) t.name = t.name.substr(std::string("transformer.").size());  // GPT2Model's names
  const auto path = write_copy(dir, tensors);
  // Width 32 is none of GPT-2's and no config.json is beside the copy.
  expect_error(path, "cannot tell the number of attention heads: width 32 is none of GPT-2's");
  expect_error(path, "pass --heads");
  Gpt2Options options;
  options.heads = 4;
  const Gpt2Model gpt2 = load_gpt2(path, options);
  EXPECT_EQ(gpt2.heads_from, "the heads option");
  expect_matches_fixture(*gpt2.model);
  options.heads = 5;
  expect_error(path, "5 heads (from the heads option) do not divide the width 32", options);
}

TEST(Gpt2Loader, HeadsMustAgreeWithConfigJson) {
  Gpt2Options options;
  options.heads = 2;
  expect_error(kWeights, "2 heads were asked for, but the config.json beside them says n_head 4", options);
  options.heads = 4;
  EXPECT_EQ(load_gpt2(kWeights, options).heads_from, "the heads option");
}

TEST(Gpt2Loader, ConfigJsonThatContradictsTheWeightsIsRefused) {
  const auto dir = st::fresh_test_dir();
  const auto path = write_copy(dir, fixture_tensors());
  const auto config = [&](const std::string& text) { st::write_text(dir / "config.json", text); };
  const auto config_error = [&](const std::string& what) {
    const std::string error = load_error(path);
    EXPECT_NE(error.find((dir / "config.json").string()), std::string::npos) << error;
    EXPECT_NE(error.find(what), std::string::npos) << "expected \"" << what << "\" in: " << error;
  };
  config(R"({"n_head": 4, "n_layer": 3})");
  config_error("\"n_layer\": 3 contradicts the weights (blocks 2)");
  config(R"({"n_head": 4, "activation_function": "swish"})");
  config_error("\"activation_function\": \"swish\" is not computed");
  config(R"({"n_head": 4, "scale_attn_by_inverse_layer_idx": true})");
  config_error("\"scale_attn_by_inverse_layer_idx\": true is not built");
  config(R"({"n_head": 4, "use_fancy_attention": true})");
  config_error("\"use_fancy_attention\": this gpt2 loader does not know the key");
  config(R"({"n_head": 4, "layer_norm_epsilon": 1e-6})");
  EXPECT_EQ(load_gpt2(path).model->config().model.norm_eps, 1e-6) << "the file's epsilon is used";
  config(R"({"n_head": 4,)");
  config_error("not valid JSON");
  config(R"({"n_head": 4, "n_inner": null, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05})");
  EXPECT_EQ(load_gpt2(path).n_head, 4);
}

TEST(Gpt2Loader, TiedLmHeadIsAcceptedAnUntiedOneRefused) {
  const auto dir = st::fresh_test_dir();
  std::vector<NamedTensor> tensors = fixture_tensors();
  const auto wte = std::find_if(tensors.begin(), tensors.end(),
                                [](const NamedTensor& t) { return t.name == "transformer.wte.weight"; });
  ASSERT_NE(wte, tensors.end());
  NamedTensor head = *wte;
  head.name = "lm_head.weight";
  tensors.push_back(head);
  st::write_text(dir / "config.json", st::read_text(kFixtureDir / "config.json"));
  expect_matches_fixture(*load_gpt2(write_copy(dir, tensors)).model);
  tensors.back().values[7] += 1.0f;
  expect_error(write_copy(dir, tensors), "tensor lm_head.weight differs from embedding.weight although GPT-2 ties");
}

// Each broken copy: the message names the file and the tensor or the place.
TEST(Gpt2Loader, BrokenFilesNameTheFileAndTheTensor) {
  const auto dir = st::fresh_test_dir();
  st::write_text(dir / "config.json", st::read_text(kFixtureDir / "config.json"));
  const std::string good = read_regular_file(kWeights, 1 << 20, "fixture");

  st::write_text(dir / "truncated.safetensors", good.substr(0, good.size() - 100));
  expect_error(dir / "truncated.safetensors", "reach past the data");
  st::write_text(dir / "header.safetensors", good.substr(0, 40));
  expect_error(dir / "header.safetensors", "truncated header");

  std::string json = good;
  json[json.find(':', 8)] = ';';  // the first ':' of the JSON header
  st::write_text(dir / "json.safetensors", json);
  expect_error(dir / "json.safetensors", "the header is not valid JSON");

  // Offsets out of range: the last tensor's end offset made larger by its leading digit (same header length).
  std::string offsets = good;
  const size_t last = offsets.find("\"transformer.ln_f.bias\"");
  ASSERT_NE(last, std::string::npos);
  const size_t end_at = offsets.find(',', offsets.find("data_offsets", last)) + 1;
  ASSERT_LT(offsets[end_at], '9');
  ++offsets[end_at];
  st::write_text(dir / "offsets.safetensors", offsets);
  expect_error(dir / "offsets.safetensors", "tensor transformer.ln_f.bias: data_offsets");

  std::string dtype = good;
  const size_t entry = dtype.find("\"transformer.h.1.ln_2.bias\":{\"dtype\":\"F32\"");
  ASSERT_NE(entry, std::string::npos);
  dtype.replace(dtype.find("F32", entry), 3, "I32");
  st::write_text(dir / "dtype.safetensors", dtype);
  expect_error(dir / "dtype.safetensors", "tensor transformer.h.1.ln_2.bias: dtype I32 cannot be read as float32");

  std::vector<NamedTensor> missing = fixture_tensors();
  std::erase_if(missing, [](const NamedTensor& t) { return t.name == "transformer.h.1.mlp.c_fc.bias"; });
  expect_error(write_copy(dir, missing, "missing.safetensors"), "has no tensor transformer.h.1.mlp.c_fc.bias");

  std::vector<NamedTensor> shape = fixture_tensors();
  for (NamedTensor& t : shape)
    if (t.name == "transformer.h.0.attn.c_proj.weight") t.shape = {16, 64};  // same values, wrong shape
  expect_error(write_copy(dir, shape, "shape.safetensors"),
               "tensor transformer.h.0.attn.c_proj.weight has shape [16, 64], expected [32, 32] (Conv1D: [in, out])");
  // (The sizes come from wte, wpe and c_fc: a wrong c_proj contradicts them.)

  std::vector<NamedTensor> extra = fixture_tensors();
  extra.push_back({"transformer.h.0.attn.rotary.weight", {2}, {1, 2}});
  expect_error(write_copy(dir, extra, "extra.safetensors"),
               "tensor transformer.h.0.attn.rotary.weight is not part of a gpt2 model");

  std::vector<NamedTensor> other = fixture_tensors();
  for (NamedTensor& t : other)
    if (t.name == "transformer.wte.weight") t.name = "model.embed_tokens.weight";
  expect_error(write_copy(dir, other, "other.safetensors"), "has neither wte.weight nor transformer.wte.weight");

  expect_error(dir / "absent.safetensors", "cannot open");
}

// A token-id file as numpy.save writes it.
std::string integer_npy(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header + data;
}

std::string int32s(std::initializer_list<int32_t> v) {
  return std::string(reinterpret_cast<const char*>(std::data(v)), v.size() * sizeof(int32_t));
}

std::string tokens_error(const std::filesystem::path& path) {
  try {
    read_token_windows(path, 50, 16);
  } catch (const NpyError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TokenWindows, OneWindowOrManyAndClearErrors) {
  const auto dir = st::fresh_test_dir();
  st::write_text(dir / "one.npy", integer_npy("<i4", "(3,)", int32s({0, 49, 7})));
  const TokenWindows one = read_token_windows(dir / "one.npy", 50, 16);
  EXPECT_EQ(one.windows, 1);
  EXPECT_EQ(one.length, 3);
  EXPECT_EQ(one.ids, (std::vector<int32_t>{0, 49, 7}));

  st::write_text(dir / "vocab.npy", integer_npy("<i4", "(2, 2)", int32s({1, 2, 3, 50})));
  EXPECT_NE(tokens_error(dir / "vocab.npy").find("id 50 at window 1, position 1 is outside the vocabulary [0, 50)"),
            std::string::npos)
      << tokens_error(dir / "vocab.npy");
  st::write_text(dir / "negative.npy", integer_npy("<i4", "(1,)", int32s({-1})));
  EXPECT_NE(tokens_error(dir / "negative.npy").find("id -1 at window 0, position 0"), std::string::npos);
  st::write_text(dir / "long.npy",
                 integer_npy("<i4", "(17,)", int32s({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})));
  EXPECT_NE(tokens_error(dir / "long.npy").find("windows of 17 tokens are longer than the model's 16 positions"),
            std::string::npos);
  st::write_text(dir / "rank3.npy", integer_npy("<i4", "(1, 1, 1)", int32s({1})));
  EXPECT_NE(tokens_error(dir / "rank3.npy").find("got rank 3"), std::string::npos);
  st::write_text(dir / "empty.npy", integer_npy("<i4", "(0, 4)", ""));
  EXPECT_NE(tokens_error(dir / "empty.npy").find("holds no tokens"), std::string::npos);
  write_npy(dir / "floats.npy", std::vector<float>{1.0f}, {1});
  EXPECT_NE(tokens_error(dir / "floats.npy").find("not an integer type"), std::string::npos);
  for (const char* f : {"vocab.npy", "long.npy", "floats.npy"})
    EXPECT_NE(tokens_error(dir / f).find((dir / f).string()), std::string::npos) << "names the file";
}

}  // namespace
}  // namespace sinklab
