// Open checkpoints in the Hugging Face layout (models/open_models/open_model_loader.h) against the PyTorch
// twin written by hand from each family's equations (tools/open_models_twin.py,
// tests/fixtures/open_models/, docs/golden.md "Open-model fixtures"): logits, the attention weights of
// every layer and head, and the residual stream after every block within 1e-5 of the fixture relative
// to the tensor's largest magnitude. The twin itself in float32 stays within 2e-6; changing one
// equation (the RoPE pairing, the GQA head mapping, the window by one, OPT's offset, the llama3
// scaling, the norm epsilon) moves some tensor by 4e-5 or far more, which the Mutations tests check.
#include "models/open_models/open_model_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/graph.h"
#include "models/token_windows.h"
#include "tests/support/golden_file.h"

namespace sinklab {
namespace {

namespace st = sinklab::testing;

const std::filesystem::path kFixtures = std::filesystem::path(SINKLAB_SOURCE_DIR) / "tests/fixtures/open_models";
constexpr double kTolerance = 1e-5;

// Every layer's attention weights [B, H, T, T] and residual stream after each block [B, T, C], read
// through the hooks a Python cache uses.
class Recorder : public ActivationHooks {
 public:
  void on_activation(std::string_view name, const Tensor& value) override {
    const std::string n(name);
    if (n.ends_with(".attn.weights")) probs.push_back(dense(value));
    if (n.ends_with(".resid_post")) resid.push_back(dense(value));
  }
  std::vector<std::vector<float>> probs, resid;

 private:
  static std::vector<float> dense(const Tensor& t) {
    std::vector<float> out;
    out.reserve(static_cast<size_t>(t.numel()));
    const int64_t A = t.dim(0), B = t.dim(1), C = t.dim(2), D = t.rank() == 4 ? t.dim(3) : 1;
    for (int64_t a = 0; a < A; ++a)
      for (int64_t b = 0; b < B; ++b)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t d = 0; d < D; ++d) out.push_back(t.rank() == 4 ? t.at({a, b, c, d}) : t.at({a, b, c}));
    return out;
  }
};

struct Outputs {
  std::vector<float> logits;
  Recorder recorded;
};

Outputs run(Model& model, const TokenWindows& tokens) {
  Outputs out;
  model.transformer().set_hooks(&out.recorded);
  Graph g;
  NoGradGuard no_grad(g);
  const Tensor logits = model.transformer().forward_tokens(g, tokens.ids.data(), tokens.windows, tokens.length);
  model.transformer().set_hooks(nullptr);
  out.logits.assign(logits.data(), logits.data() + logits.numel());
  return out;
}

// Relative max error: max |got - want| / max |want|.
double relative_error(const std::vector<float>& got, const st::GoldenTensor& want) {
  if (got.size() != want.values.size()) return INFINITY;
  double scale = 0, worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, static_cast<double>(std::abs(want.values[i])));
    worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want.values[i]));
  }
  return worst / scale;
}

// The largest relative error over every tensor of the fixture, naming the worst.
std::pair<double, std::string> worst_error(Model& model, const std::string& fixture) {
  const std::filesystem::path dir = kFixtures / fixture;
  const st::GoldenFile expected = st::GoldenFile::load((dir / "expected.bin").string());
  const TokenWindows tokens = read_token_windows(dir / "ids.npy", model.shape().output_dim, model.shape().max_seq_len);
  const Outputs out = run(model, tokens);
  std::pair<double, std::string> worst{relative_error(out.logits, expected.get("logits")), "logits"};
  const int L = model.transformer().layers();
  if (static_cast<int>(out.recorded.probs.size()) != L || static_cast<int>(out.recorded.resid.size()) != L)
    return {INFINITY, "hooks saw " + std::to_string(out.recorded.probs.size()) + " layers"};
  for (int l = 0; l < L; ++l) {
    const std::string p = "probs.layer" + std::to_string(l), r = "resid_post.layer" + std::to_string(l);
    const double ep = relative_error(out.recorded.probs[static_cast<size_t>(l)], expected.get(p));
    const double er = relative_error(out.recorded.resid[static_cast<size_t>(l)], expected.get(r));
    if (ep > worst.first) worst = {ep, p};
    if (er > worst.first) worst = {er, r};
  }
  return worst;
}

class OpenModelFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(OpenModelFixture, MatchesTheTwin) {
  const OpenModel m = load_open_model(kFixtures / GetParam(), {});
  const auto [error, where] = worst_error(*m.model, GetParam());
  EXPECT_LE(error, kTolerance) << GetParam() << ": " << where;
  EXPECT_EQ(open_model_parameter_count(m.model->config().model, m.model->shape()),
            [&] {
              double n = 0;
              for (const ParameterInfo& p : m.model->parameters().parameters())
                n += static_cast<double>(p.shape.numel());
              return n;
            }());
}

TEST_P(OpenModelFixture, BlockByBlockGivesTheSameBits) {
  const OpenModel m = load_open_model(kFixtures / GetParam(), {});
  const TokenWindows tokens =
      read_token_windows(kFixtures / GetParam() / "ids.npy", m.model->shape().output_dim, m.model->shape().max_seq_len);
  Graph whole, one_block;
  NoGradGuard no_grad_whole(whole), no_grad_block(one_block);
  const Tensor a = m.model->transformer().forward_tokens(whole, tokens.ids.data(), tokens.windows, tokens.length);
  const Tensor b =
      m.model->transformer().forward_tokens_block_by_block(one_block, tokens.ids.data(), tokens.windows, tokens.length);
  ASSERT_EQ(a.shape(), b.shape());
  EXPECT_TRUE(std::equal(a.data(), a.data() + a.numel(), b.data())) << GetParam();
  // Only the output (and the ids' scratch) stays in the caller's graph.
  EXPECT_LT(one_block.arena().high_water(), whole.arena().high_water() / 2) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Families, OpenModelFixture,
                         ::testing::Values("gpt_neox", "gpt_neox_sequential", "llama", "llama3", "mistral", "qwen2",
                                           "qwen3", "opt"),
                         [](const auto& info) { return std::string(info.param); });

// A model built from a changed config, with the fixture's weights: the fixture must tell it apart.
double error_with(const std::string& fixture, void (*change)(ModelConfig&)) {
  OpenModel m = load_open_model(kFixtures / fixture, {});
  RunConfig config = m.model->config();
  change(config.model);
  Model changed(config, m.model->shape());
  const auto from = m.model->parameters().values();
  std::copy(from.begin(), from.end(), changed.parameters().values().begin());
  return worst_error(changed, fixture).first;
}

TEST(OpenModelMutations, EveryEquationChangeIsSeen) {
  EXPECT_GT(error_with("llama", [](ModelConfig& m) { m.rope.pairing = RopePairing::interleaved; }), 100 * kTolerance);
  EXPECT_GT(error_with("mistral", [](ModelConfig& m) { m.attention.window += 1; }), 100 * kTolerance);
  EXPECT_GT(error_with("mistral", [](ModelConfig& m) { m.attention.window = 0; }), 100 * kTolerance);
  EXPECT_GT(error_with("llama3", [](ModelConfig& m) { m.rope.scaling = RopeScaling::none; m.rope.factor = 1; }),
            100 * kTolerance);
  EXPECT_GT(error_with("gpt_neox", [](ModelConfig& m) { m.parallel_residual = false; }), 100 * kTolerance);
  EXPECT_GT(error_with("gpt_neox", [](ModelConfig& m) { m.rope.dims = 0; }), 100 * kTolerance);
  EXPECT_GT(error_with("gpt_neox", [](ModelConfig& m) { m.mlp_activation = Activation::gelu_tanh; }), 2 * kTolerance);
  EXPECT_GT(error_with("qwen3", [](ModelConfig& m) { m.norm_eps = 1e-5; }), 2 * kTolerance);
}

TEST(OpenModelMutations, TheGroupedHeadMappingIsSeen) {
  // Swapping the two key/value heads of every layer is what a wrong h -> kv head mapping does.
  OpenModel m = load_open_model(kFixtures / "llama", {});
  const int64_t D = resolved_head_dim(m.model->config().model), C = m.model->config().model.d_model;
  for (int l = 0; l < m.model->transformer().layers(); ++l)
    for (const char* w : {"w_k", "w_v"}) {
      Tensor t = m.model->parameters().tensor("blocks." + std::to_string(l) + ".attn." + w + ".weight");
      std::swap_ranges(t.data(), t.data() + D * C, t.data() + D * C);
    }
  EXPECT_GT(worst_error(*m.model, "llama").first, 100 * kTolerance);
}

}  // namespace
}  // namespace sinklab
