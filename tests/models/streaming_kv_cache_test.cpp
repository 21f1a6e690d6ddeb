// The KV-cache path of the streaming evaluation (StreamingEvaluator::cached_losses, layers/kv_cache.h)
// against the recomputation path, which stays the reference: the first W positions (no eviction yet)
// agree to rounding on every open-model fixture with RoPE (GQA, a sliding window, q/k norm, partial
// rotary, a parallel residual); a one-layer model agrees at every position, evictions included (its
// keys and values depend on the token alone, so keeping them equals recomputing them); a deeper model
// differs once tokens are evicted (the two methods are different, as StreamingLLM describes); models
// with learned positions are refused by name.
#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "models/model_loader.h"
#include "models/open_models/open_model_loader.h"
#include "models/streaming_evaluation.h"

namespace sinklab {
namespace {

const std::filesystem::path kFixtures = std::filesystem::path(SINKLAB_SOURCE_DIR) / "tests/fixtures/open_models";

std::vector<int32_t> random_stream(int vocab, int length, uint64_t seed) {
  Rng rng(seed);
  std::vector<int32_t> ids(static_cast<size_t>(length));
  for (int32_t& id : ids) id = static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab)));
  return ids;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b, size_t from, size_t to) {
  double worst = 0;
  for (size_t i = from; i < to; ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

class CachedStreaming : public ::testing::TestWithParam<const char*> {};

TEST_P(CachedStreaming, FirstWindowMatchesRecomputation) {
  const OpenModel m = load_open_model(kFixtures / GetParam(), {});
  const std::vector<int32_t> stream = random_stream(m.model->shape().output_dim, 30, 5);
  StreamingEvaluator evaluator(*m.model, stream, false);
  for (const StreamWindow s : {StreamWindow{8, 0}, StreamWindow{10, 2}}) {
    const std::vector<double> cached = evaluator.cached_losses(s), recomputed = evaluator.windowed_losses(s);
    ASSERT_EQ(cached.size(), recomputed.size());
    EXPECT_LE(max_difference(cached, recomputed, 0, static_cast<size_t>(s.window)), 2e-5) << GetParam();
    for (const double loss : cached) EXPECT_TRUE(std::isfinite(loss));
    // Two layers: once tokens are evicted, kept keys and values are not recomputed ones.
    EXPECT_GT(max_difference(cached, recomputed, static_cast<size_t>(s.window), cached.size()), 1e-4) << GetParam();
  }
  EXPECT_EQ(m.model->transformer().kv_cache(), nullptr) << "the cache is detached after the call";
}

INSTANTIATE_TEST_SUITE_P(RopeFamilies, CachedStreaming,
                         ::testing::Values("llama", "llama3", "mistral", "qwen2", "qwen3", "gpt_neox"),
                         [](const auto& info) { return std::string(info.param); });

TEST(CachedStreamingOneLayer, EveryPositionMatchesRecomputation) {
  // The llama fixture's architecture with one layer, freshly initialized.
  const OpenModel fixture = load_open_model(kFixtures / "llama", {});
  RunConfig config = fixture.model->config();
  config.model.layers = 1;
  config.model.init_std = 0.3;
  const std::unique_ptr<Model> model = build_model(config, fixture.model->shape());
  const std::vector<int32_t> stream = random_stream(model->shape().output_dim, 40, 9);
  StreamingEvaluator evaluator(*model, stream, false);
  for (const StreamWindow s : {StreamWindow{6, 0}, StreamWindow{8, 3}}) {
    const std::vector<double> cached = evaluator.cached_losses(s), recomputed = evaluator.windowed_losses(s);
    EXPECT_LE(max_difference(cached, recomputed, 0, cached.size()), 2e-5);
  }
}

TEST(CachedStreamingRefusal, LearnedPositionsAreNamed) {
  const OpenModel m = load_open_model(kFixtures / "opt", {});
  const std::vector<int32_t> stream = random_stream(m.model->shape().output_dim, 20, 1);
  StreamingEvaluator evaluator(*m.model, stream, false);
  try {
    evaluator.cached_losses({8, 1});
    FAIL() << "a model with learned positions was decoded from a cache";
  } catch (const StreamSettingError& e) {
    EXPECT_EQ(e.setting(), "method");
    EXPECT_NE(std::string(e.what()).find("learned"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sinklab
