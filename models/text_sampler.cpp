#include "models/text_sampler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/graph.h"
#include "core/rng.h"

namespace sinklab {
namespace {

constexpr int32_t kBos = 0;

// The next id from one row of logits over ids 0 .. classes - 1, BOS excluded.
int32_t pick(const float* logits, int classes, double temperature, Rng& rng, std::vector<double>& weights) {
  int32_t best = 1;
  for (int32_t k = 2; k < classes; ++k)
    if (logits[k] > logits[best]) best = k;
  if (temperature == 0.0) return best;
  // softmax(logits / temperature) over ids 1 .. classes - 1, shifted by the largest logit.
  double total = 0.0;
  for (int32_t k = 1; k < classes; ++k) {
    weights[static_cast<std::size_t>(k)] = std::exp((static_cast<double>(logits[k]) - logits[best]) / temperature);
    total += weights[static_cast<std::size_t>(k)];
  }
  const double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53 * total;  // uniform in [0, total)
  double cumulative = 0.0;
  for (int32_t k = 1; k < classes; ++k) {
    cumulative += weights[static_cast<std::size_t>(k)];
    if (u < cumulative) return k;
  }
  return best;  // u within rounding of total
}

}  // namespace

std::vector<int32_t> model_window(std::span<const int32_t> text, int context) {
  const std::size_t keep = std::min(text.size(), static_cast<std::size_t>(std::max(context - 1, 0)));
  std::vector<int32_t> window{kBos};
  window.insert(window.end(), text.end() - static_cast<std::ptrdiff_t>(keep), text.end());
  return window;
}

std::vector<int32_t> sample_tokens(const Model& model, std::span<const int32_t> prompt,
                                   const SamplingSettings& settings) {
  const RunConfig& c = model.config();
  if (c.model.input != InputKind::tokens)
    throw std::invalid_argument("sampling needs a model that reads tokens (model.input: tokens)");
  if (!std::isfinite(settings.temperature) || settings.temperature < 0.0)
    throw std::invalid_argument("the temperature must be a finite number >= 0 (0 = greedy), got " +
                                std::to_string(settings.temperature));
  if (settings.tokens < 0)
    throw std::invalid_argument("the number of tokens must be >= 0, got " + std::to_string(settings.tokens));
  const int max_context = model.shape().max_seq_len;
  const int context = settings.context == 0 ? max_context : settings.context;
  if (context < 2 || context > max_context)
    throw std::invalid_argument("the context must be 2 .. " + std::to_string(max_context) +
                                " positions (the model's sequence length), got " + std::to_string(context));
  const int classes = model.shape().output_dim;
  if (classes < 2) throw std::invalid_argument("sampling needs at least one class besides BOS");
  for (const int32_t id : prompt)
    if (id < 0 || id >= c.model.vocab_size)
      throw std::invalid_argument("prompt id " + std::to_string(id) + " is outside the model's vocabulary 0 .. " +
                                  std::to_string(c.model.vocab_size - 1));

  std::vector<int32_t> text(prompt.begin(), prompt.end());
  text.reserve(text.size() + static_cast<std::size_t>(settings.tokens));
  std::vector<double> weights(static_cast<std::size_t>(classes));
  Rng rng(settings.seed);
  Graph g;
  const NoGradGuard no_grad(g);
  for (int t = 0; t < settings.tokens; ++t) {
    const std::vector<int32_t> window = model_window(text, context);
    const auto n = static_cast<int64_t>(window.size());
    g.reset();
    const Tensor out = model.transformer().forward_tokens(g, window.data(), 1, n);
    if (!out.is_contiguous()) throw std::logic_error("sample_tokens: the model output is not contiguous");
    text.push_back(pick(out.data() + (n - 1) * classes, classes, settings.temperature, rng, weights));
    if (settings.on_token) settings.on_token(text.back());
  }
  g.reset();
  return {text.end() - settings.tokens, text.end()};
}

}  // namespace sinklab
