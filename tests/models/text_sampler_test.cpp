// Sampling from a token model (models/text_sampler.h): greedy decoding is the arg-max of the model's
// own forward pass over the BOS-started sliding window, temperature sampling is reproducible from its
// seed and draws from softmax(logits / T) over the non-BOS ids, and bad settings are refused.
#include "models/text_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "config_loading/config_loader.h"
#include "core/graph.h"
#include "core/thread_count.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "models/model_loader.h"

namespace sinklab {
namespace {

constexpr int kVocab = 7, kSeqLen = 8;

// A random 2-layer token model (init_std 0.5: logits far enough apart for a clear arg-max).
std::unique_ptr<Model> random_model() {
  set_thread_count(1);  // thousands of tiny forward passes: threads would only wait for each other
  const ConfigVocabulary vocab = registered_vocabulary();
  const RunConfig c = parse_run_config(
      "model: {d_model: 16, layers: 2, heads: 2, residual: true, norm: layer_norm, input: tokens, vocab_size: 7,\n"
      "        output_head: true, positional: learned, init_std: 0.5}\n"
      "task: {name: copy, vocab_size: 7, offset: 1, seq_len: 8, eval_samples: 4}\n"
      "analysis: {eval_attention_samples: 4}\n",
      "sampler.yaml", {}, vocab);
  return build_model(c);
}

// The logits of the last position of one forward pass over `window`.
std::vector<float> last_logits(const Model& model, const std::vector<int32_t>& window) {
  Graph g;
  NoGradGuard no_grad(g);
  const auto n = static_cast<int64_t>(window.size());
  const Tensor out = model.transformer().forward_tokens(g, window.data(), 1, n);
  return {out.data() + (n - 1) * kVocab, out.data() + n * kVocab};
}

TEST(TextSampler, WindowIsBosThenTheLastContextMinusOneTokens) {
  const std::vector<int32_t> text{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(model_window(text, 4), (std::vector<int32_t>{0, 4, 5, 6}));
  EXPECT_EQ(model_window(text, 8), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(model_window({}, 8), std::vector<int32_t>{0});
}

TEST(TextSampler, GreedyIsTheArgMaxOfTheModelsForwardPass) {
  const auto model = random_model();
  const std::vector<int32_t> prompt{3, 5, 2};
  for (const int context : {0, 5}) {
    SCOPED_TRACE(context);
    SamplingSettings s;
    s.tokens = 12;  // the text outgrows the context: the window slides
    s.context = context;
    const std::vector<int32_t> got = sample_tokens(*model, prompt, s);
    ASSERT_EQ(got.size(), 12u);
    EXPECT_EQ(sample_tokens(*model, prompt, s), got) << "greedy decoding is deterministic";

    std::vector<int32_t> text = prompt;
    const std::size_t keep = (context == 0 ? kSeqLen : context) - 1;
    for (int t = 0; t < 12; ++t) {
      std::vector<int32_t> window{0};
      const std::size_t from = text.size() > keep ? text.size() - keep : 0;
      window.insert(window.end(), text.begin() + static_cast<std::ptrdiff_t>(from), text.end());
      const std::vector<float> logits = last_logits(*model, window);
      text.push_back(static_cast<int32_t>(std::max_element(logits.begin() + 1, logits.end()) - logits.begin()));
    }
    EXPECT_EQ(got, std::vector<int32_t>(text.begin() + 3, text.end()));
  }
}

TEST(TextSampler, TemperatureSamplingIsReproducibleAndDrawsFromTheSoftmax) {
  const auto model = random_model();
  const std::vector<int32_t> prompt{4};
  SamplingSettings s;
  s.tokens = 20;
  s.temperature = 1.0;
  s.seed = 7;
  const std::vector<int32_t> a = sample_tokens(*model, prompt, s);
  EXPECT_EQ(sample_tokens(*model, prompt, s), a);
  s.seed = 8;
  EXPECT_NE(sample_tokens(*model, prompt, s), a);
  for (const int32_t id : a) EXPECT_TRUE(id >= 1 && id < kVocab) << id;

  const std::vector<float> logits = last_logits(*model, {0, 4});
  for (const double temperature : {1.0, 0.5}) {
    SCOPED_TRACE(temperature);
    std::vector<double> p(kVocab, 0.0);
    double total = 0;
    for (int k = 1; k < kVocab; ++k) total += p[k] = std::exp(logits[k] / temperature);
    for (double& v : p) v /= total;
    constexpr int kDraws = 4000;
    std::vector<int> counts(kVocab, 0);
    SamplingSettings one;
    one.tokens = 1;
    one.temperature = temperature;
    for (int seed = 0; seed < kDraws; ++seed) {
      one.seed = static_cast<uint64_t>(seed);
      ++counts[static_cast<std::size_t>(sample_tokens(*model, prompt, one)[0])];
    }
    EXPECT_EQ(counts[0], 0) << "BOS is never drawn";
    for (int k = 1; k < kVocab; ++k) {
      const double freq = static_cast<double>(counts[k]) / kDraws;
      EXPECT_NEAR(freq, p[k], 5 * std::sqrt(p[k] * (1 - p[k]) / kDraws) + 1e-3) << "id " << k;
    }
  }
  SamplingSettings cold;
  cold.tokens = 12;
  cold.temperature = 1e-4;  // practically greedy
  SamplingSettings greedy;
  greedy.tokens = 12;
  EXPECT_EQ(sample_tokens(*model, prompt, cold), sample_tokens(*model, prompt, greedy));
}

TEST(TextSampler, BadSettingsAreRefused) {
  const auto model = random_model();
  SamplingSettings s;
  s.tokens = 1;
  s.temperature = -0.5;
  EXPECT_THROW(sample_tokens(*model, {}, s), std::invalid_argument);
  s.temperature = std::nan("");
  EXPECT_THROW(sample_tokens(*model, {}, s), std::invalid_argument);
  s.temperature = 0;
  s.context = kSeqLen + 1;
  EXPECT_THROW(sample_tokens(*model, {}, s), std::invalid_argument);
  s.context = 1;
  EXPECT_THROW(sample_tokens(*model, {}, s), std::invalid_argument);
  s.context = 0;
  const std::vector<int32_t> outside{kVocab};
  EXPECT_THROW(sample_tokens(*model, outside, s), std::invalid_argument);
  EXPECT_EQ(sample_tokens(*model, {}, s).size(), 1u);  // an empty prompt: generation from BOS alone
}

}  // namespace
}  // namespace sinklab
