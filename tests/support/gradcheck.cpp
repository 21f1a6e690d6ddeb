#include "tests/support/gradcheck.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "core/rng.h"

namespace sinklab::testing {
namespace {

// One element whose gradient is checked: where its value lives and what backward said about it.
struct Probe {
  std::string label;
  float* value;
  double analytic;
};

double projected_loss(const Tensor& out, const std::vector<float>& r) {
  double s = 0;
  for (size_t i = 0; i < r.size(); ++i) s += static_cast<double>(out.data()[i]) * r[i];
  return s;
}

std::vector<int64_t> chosen_elements(int64_t n, int max_checks, Rng& rng) {
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  if (n <= max_checks) return idx;
  for (int64_t i = 0; i < max_checks; ++i)
    std::swap(idx[static_cast<size_t>(i)],
              idx[static_cast<size_t>(i + static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - i))))]);
  idx.resize(static_cast<size_t>(max_checks));
  return idx;
}

// Analytic pass: runs f with gradients, seeds out.grad = R, walks the tape. Returns R.
std::vector<float> analytic_pass(const std::function<Tensor(Graph&)>& f, const GradcheckOptions& o,
                                 std::string& error) {
  Graph g;
  Tensor out = f(g);
  if (!out.requires_grad()) { error = "output does not require grad"; return {}; }
  if (!out.is_contiguous()) { error = "gradcheck needs a contiguous output"; return {}; }
  std::vector<float> r(static_cast<size_t>(out.numel()));
  Rng rng(o.seed);
  rng.fill_uniform(r, -1.0f, 1.0f);
  g.backward(out, r);
  return r;
}

::testing::AssertionResult numeric_pass(const std::function<Tensor(Graph&)>& f, std::vector<Probe>& probes,
                                        const std::vector<float>& r, const GradcheckOptions& o) {
  Graph g;
  NoGradGuard no_grad(g);
  int failures = 0, kinks = 0;
  double worst = 0;
  std::ostringstream msg;
  auto central_difference = [&](Probe& p, float step) {
    const float original = *p.value;
    *p.value = original + step;
    const double plus = projected_loss(f(g), r);
    g.reset();
    *p.value = original - step;
    const double minus = projected_loss(f(g), r);
    g.reset();
    *p.value = original;
    return (plus - minus) / (2.0 * static_cast<double>(step));
  };
  for (Probe& p : probes) {
    const double numeric = central_difference(p, o.step);
    const double err = std::abs(numeric - p.analytic);
    const double allowed = o.atol + o.rtol * std::max(std::abs(numeric), std::abs(p.analytic));
    if (o.skip_kinks && err > allowed) {
      const double half = central_difference(p, o.step / 2);
      if (std::abs(half - numeric) > o.atol + o.rtol * std::max(std::abs(half), std::abs(numeric))) {
        ++kinks;
        continue;
      }
    }
    worst = std::max(worst, err / allowed);
    if (err > allowed && failures++ < 8)
      msg << "\n  " << p.label << ": analytic " << p.analytic << " numeric " << numeric << " (|diff| " << err << " > "
          << allowed << ")";
  }
  if (failures)
    return ::testing::AssertionFailure() << failures << " of " << probes.size()
                                         << " gradient entries wrong:" << msg.str();
  if (kinks > o.max_kink_share * static_cast<double>(probes.size()))
    return ::testing::AssertionFailure() << kinks << " of " << probes.size()
                                         << " entries skipped as kinks: too many to trust the check";
  return ::testing::AssertionSuccess() << probes.size() << " entries, worst error/allowed " << worst;
}

}  // namespace

::testing::AssertionResult check_leaf_gradients(const LeafFunction& f, std::vector<Leaf> leaves,
                                                const GradcheckOptions& o) {
  Rng init(o.seed + 1);
  std::vector<std::vector<float>> grads(leaves.size());
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < leaves.size(); ++i) {
    Leaf& leaf = leaves[i];
    const auto n = static_cast<size_t>(leaf.shape.numel());
    if (leaf.values.empty()) {
      leaf.values.resize(n);
      init.fill_uniform(leaf.values, -1.0f, 1.0f);
    }
    if (leaf.values.size() != n)
      return ::testing::AssertionFailure() << "leaf " << i << ": values do not match shape " << leaf.shape.str();
    grads[i].assign(n, 0.0f);
    tensors.emplace_back(leaf.values.data(), leaf.requires_grad ? grads[i].data() : nullptr, leaf.shape);
  }
  auto run = [&](Graph& g) { return f(g, tensors); };
  std::string error;
  const std::vector<float> r = analytic_pass(run, o, error);
  if (!error.empty()) return ::testing::AssertionFailure() << error;

  std::vector<Probe> probes;
  Rng pick(o.seed + 2);
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].requires_grad) continue;
    for (int64_t e : chosen_elements(leaves[i].shape.numel(), o.max_checks_per_tensor, pick))
      probes.push_back({"input " + std::to_string(i) + "[" + std::to_string(e) + "]",
                        &leaves[i].values[static_cast<size_t>(e)], grads[i][static_cast<size_t>(e)]});
  }
  return numeric_pass(run, probes, r, o);
}

::testing::AssertionResult check_parameter_gradients(ParameterStore& params, const std::function<Tensor(Graph&)>& f,
                                                     const GradcheckOptions& o) {
  params.zero_grads();
  std::string error;
  const std::vector<float> r = analytic_pass(f, o, error);
  if (!error.empty()) return ::testing::AssertionFailure() << error;
  std::vector<Probe> probes;
  Rng pick(o.seed + 2);
  for (const ParameterInfo& p : params.parameters())
    for (int64_t e : chosen_elements(p.shape.numel(), o.max_checks_per_tensor, pick)) {
      const size_t at = p.offset + static_cast<size_t>(e);
      probes.push_back({p.name + "[" + std::to_string(e) + "]", &params.values()[at], params.grads()[at]});
    }
  return numeric_pass(f, probes, r, o);
}

Tensor random_tensor(std::vector<float>& storage, const Shape& shape, uint64_t seed, float lo, float hi) {
  storage.resize(static_cast<size_t>(shape.numel()));
  Rng rng(seed);
  rng.fill_uniform(storage, lo, hi);
  return Tensor(storage.data(), nullptr, shape);
}

}  // namespace sinklab::testing
