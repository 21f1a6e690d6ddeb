#include "probes/probe_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "core/graph.h"
#include "core/rng.h"
#include "layers/normalizers/softmax_normalizer.h"

namespace sinklab::probes {
namespace {

void say(std::ostream& progress, int length_index, const std::vector<int>& lengths, int window, int windows,
         std::chrono::steady_clock::time_point start) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress << "probe: L = " << lengths[static_cast<std::size_t>(length_index)] << " (" << length_index + 1 << "/"
           << lengths.size() << "), window " << window + 1 << "/" << windows << ", " << static_cast<int>(seconds)
           << " s" << std::endl;
}

// The first L rows of each head of x [H, max_len, D], packed as out [H, L, D].
void first_rows(const std::vector<float>& x, int H, int max_len, int L, int D, std::vector<float>& out) {
  out.resize(static_cast<std::size_t>(H) * L * D);
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < L; ++t)
      for (int i = 0; i < D; ++i)
        out[(static_cast<std::size_t>(h) * L + t) * D + i] = x[(static_cast<std::size_t>(h) * max_len + t) * D + i];
}

// weights [H, L, L]: the zoo's own softmax rows (no scratch) of the causal logits q . k * scale.
void causal_softmax(const std::vector<float>& q, const std::vector<float>& k, int H, int L, int D, float scale,
                    std::vector<float>& weights) {
  const SoftmaxNormalizer softmax;
  std::vector<double> row(static_cast<std::size_t>(L)), probs(row.size());
  weights.assign(static_cast<std::size_t>(H) * L * L, 0.0f);
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < L; ++t) {
      for (int s = 0; s <= t; ++s) {
        double l = 0.0;
        for (int i = 0; i < D; ++i)
          l += static_cast<double>(q[(static_cast<std::size_t>(h) * L + t) * D + i]) *
               k[(static_cast<std::size_t>(h) * L + s) * D + i];
        row[static_cast<std::size_t>(s)] = static_cast<double>(static_cast<float>(l) * scale);
      }
      softmax.forward_row_f64(row.data(), probs.data(), RowSpec{t, t + 1, L, h}, nullptr, nullptr);
      for (int s = 0; s <= t; ++s)
        weights[(static_cast<std::size_t>(h) * L + t) * L + s] = static_cast<float>(probs[static_cast<std::size_t>(s)]);
    }
}

}  // namespace

ProbeResults probe_model(const ProbeWindows& source, const ProbeSettings& settings, const std::vector<int>& lengths,
                         std::ostream& progress) {
  if (!source.model) throw std::invalid_argument("probe: no model");
  if (lengths.empty() || lengths.back() > source.length)
    throw std::invalid_argument("probe: the longest length exceeds the windows");
  Model& model = *source.model;
  ProbeCollector collector(settings, lengths, model.transformer().layers(), model.transformer().heads(),
                           row_kind_of(model));
  const auto registration = model.transformer().observers().observe(collector);
  Graph g;
  const NoGradGuard no_grad(g);
  std::vector<int32_t> ids;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t li = 0; li < lengths.size(); ++li) {
    const int L = lengths[li];
    for (int w = 0; w < source.windows; ++w) {
      const int32_t* window = source.ids.data() + static_cast<int64_t>(w) * source.length;
      ids.assign(window, window + L);
      collector.begin_pass(static_cast<int>(li), w);
      g.reset();
      model.transformer().forward_tokens(g, ids.data(), 1, L);
      say(progress, static_cast<int>(li), lengths, w, source.windows, start);
    }
  }
  g.reset();
  return collector.results();
}

ProbeResults probe_synthetic(const ProbeSettings& settings, const std::vector<int>& lengths,
                             const SyntheticShape& shape, std::ostream& progress) {
  if (lengths.empty()) throw std::invalid_argument("probe: no lengths");
  const int max_len = lengths.back(), H = shape.heads, D = shape.head_dim, C = shape.model_dim;
  ProbeCollector collector(settings, lengths, shape.layers, H, RowKind{});
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  // One layer's tensors of one window at the longest length, reused for every pass.
  std::vector<float> q(static_cast<std::size_t>(H) * max_len * D), k(q.size()), v(q.size());
  std::vector<float> inputs(static_cast<std::size_t>(max_len) * C);
  std::vector<float> q_l, k_l, v_l, weights;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t li = 0; li < lengths.size(); ++li) {
    const int L = lengths[li];
    for (int w = 0; w < settings.windows; ++w) {
      collector.begin_pass(static_cast<int>(li), w);
      for (int layer = 0; layer < shape.layers; ++layer) {
        Rng rng(settings.seed * 1000003u + static_cast<uint64_t>(layer) * 4099u + static_cast<uint64_t>(w) + 17u);
        rng.fill_normal(q, 0.0f, 1.0f);
        rng.fill_normal(k, 0.0f, 1.0f);
        rng.fill_normal(v, 0.0f, 1.0f);
        rng.fill_normal(inputs, 0.0f, 1.0f);
        // The first L rows of each head, packed as [H, 1, L, D], and causal softmax weights [H, 1, L, L].
        first_rows(q, H, max_len, L, D, q_l);
        first_rows(k, H, max_len, L, D, k_l);
        first_rows(v, H, max_len, L, D, v_l);
        causal_softmax(q_l, k_l, H, L, D, scale, weights);
        AttentionView view{layer, 1, H, L, weights.data(), nullptr, AttentionBlockLayout::head_major(1, L)};
        view.queries = q_l.data();
        view.keys = k_l.data();
        view.values = v_l.data();
        view.inputs = inputs.data();
        view.head_dim = D;
        view.model_dim = C;
        view.logit_scale = scale;
        collector.on_attention(view);
      }
      say(progress, static_cast<int>(li), lengths, w, settings.windows, start);
    }
  }
  return collector.results();
}

}  // namespace sinklab::probes
