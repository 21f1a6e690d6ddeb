// Every normalizer variant's backward (scores and per-head parameters) against float64 central
// differences of its own forward: random rows of 1..16 keys, a random-projection loss
// L = sum_k r_k a_k, step 1e-5, rows within 1e-3 of a kink skipped, agreement to 1e-6 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "core/rng.h"
#include "layers/normalizers/normalizer_registry.h"
#include "tests/support/normalizer_variants.h"

namespace sinklab {
namespace {

using testing::NormalizerVariant;

class EveryNormalizerVariant : public ::testing::TestWithParam<NormalizerVariant> {};

constexpr double kStep = 1e-5, kKinkMargin = 1e-3, kRelTol = 1e-6, kAbsTol = 1e-9;
constexpr int kMaxKeys = 16, kRowsPerLength = 6;

struct RowCase {
  std::vector<double> scores, params, projection;
  RowSpec spec;
};

double projected_loss(const Normalizer& norm, const RowCase& c, const std::vector<double>& scores,
                      const std::vector<double>& params, std::vector<double>& scratch) {
  std::vector<double> probs(scores.size());
  norm.forward_row_f64(scores.data(), probs.data(), c.spec, params.empty() ? nullptr : params.data(), scratch.data());
  double loss = 0.0;
  for (size_t k = 0; k < probs.size(); ++k) loss += c.projection[k] * probs[k];
  return loss;
}

::testing::AssertionResult close(double analytic, double numeric) {
  const double tol = kRelTol * std::max(std::fabs(analytic), std::fabs(numeric)) + kAbsTol;
  if (std::fabs(analytic - numeric) <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "analytic " << analytic << " vs central difference " << numeric;
}

TEST_P(EveryNormalizerVariant, BackwardMatchesFloat64CentralDifferences) {
  const auto norm = normalizer_registry().create(GetParam().config);
  const int P = norm->params_per_head();
  Rng rng(2024);
  int checked = 0, skipped = 0;
  for (int n = 1; n <= kMaxKeys; ++n)
    for (int r = 0; r < kRowsPerLength; ++r) {
      RowCase c;
      c.spec = RowSpec{n - 1, n, kMaxKeys, 0};
      for (int k = 0; k < n; ++k) {
        c.scores.push_back(rng.uniform(-3.0f, 3.0f));
        c.projection.push_back(rng.uniform(-1.0f, 1.0f));
      }
      for (int p = 0; p < P; ++p) c.params.push_back(norm->initial_param(p) + rng.uniform(-0.5f, 0.5f));
      const double* params = P > 0 ? c.params.data() : nullptr;
      if (norm->near_kink(c.scores.data(), c.spec, params, kKinkMargin)) {
        ++skipped;
        continue;
      }
      ++checked;
      std::vector<double> scratch(static_cast<size_t>(std::max(norm->scratch_per_row(n), 1)));
      std::vector<double> probs(static_cast<size_t>(n)), dscores(static_cast<size_t>(n), 0.0),
          dparams(static_cast<size_t>(P), 0.0);
      norm->forward_row_f64(c.scores.data(), probs.data(), c.spec, params, scratch.data());
      norm->backward_row_f64(c.scores.data(), probs.data(), c.projection.data(), dscores.data(), c.spec, params,
                             P > 0 ? dparams.data() : nullptr, scratch.data());
      for (int k = 0; k < n; ++k) {
        std::vector<double> up = c.scores, down = c.scores;
        up[static_cast<size_t>(k)] += kStep;
        down[static_cast<size_t>(k)] -= kStep;
        const double numeric =
            (projected_loss(*norm, c, up, c.params, scratch) - projected_loss(*norm, c, down, c.params, scratch)) /
            (2 * kStep);
        EXPECT_TRUE(close(dscores[static_cast<size_t>(k)], numeric)) << "n " << n << " key " << k;
      }
      for (int p = 0; p < P; ++p) {
        std::vector<double> up = c.params, down = c.params;
        up[static_cast<size_t>(p)] += kStep;
        down[static_cast<size_t>(p)] -= kStep;
        const double numeric =
            (projected_loss(*norm, c, c.scores, up, scratch) - projected_loss(*norm, c, c.scores, down, scratch)) /
            (2 * kStep);
        EXPECT_TRUE(close(dparams[static_cast<size_t>(p)], numeric)) << "n " << n << " head parameter " << p;
      }
    }
  // Skipping must not hollow the check out.
  EXPECT_GE(checked, 3 * (checked + skipped) / 4) << skipped << " of " << checked + skipped << " rows near a kink";
}

// The backward adds into dscores and touches nothing past the row.
TEST_P(EveryNormalizerVariant, BackwardAddsAndStaysInsideTheRow) {
  const auto norm = normalizer_registry().create(GetParam().config);
  const int P = norm->params_per_head(), n = 9;
  Rng rng(7);
  std::vector<double> scores(n), probs(n), projection(n), params(static_cast<size_t>(std::max(P, 1)), 0.3);
  for (int k = 0; k < n; ++k) {
    scores[static_cast<size_t>(k)] = rng.uniform(-2.0f, 2.0f);
    projection[static_cast<size_t>(k)] = rng.uniform(-1.0f, 1.0f);
  }
  const RowSpec spec{n - 1, n, kMaxKeys, 0};
  std::vector<double> scratch(static_cast<size_t>(std::max(norm->scratch_per_row(n), 1)));
  norm->forward_row_f64(scores.data(), probs.data(), spec, params.data(), scratch.data());
  std::vector<double> fresh(n + 1, 0.0), offset(n + 1, 5.0), dp_fresh(params.size(), 0.0),
      dp_offset(params.size(), 5.0);
  norm->backward_row_f64(scores.data(), probs.data(), projection.data(), fresh.data(), spec, params.data(),
                         P > 0 ? dp_fresh.data() : nullptr, scratch.data());
  norm->backward_row_f64(scores.data(), probs.data(), projection.data(), offset.data(), spec, params.data(),
                         P > 0 ? dp_offset.data() : nullptr, scratch.data());
  for (int k = 0; k < n; ++k) EXPECT_NEAR(offset[static_cast<size_t>(k)] - 5.0, fresh[static_cast<size_t>(k)], 1e-12);
  EXPECT_EQ(fresh[n], 0.0);
  EXPECT_EQ(offset[n], 5.0);
  for (int p = 0; p < P; ++p)
    EXPECT_NEAR(dp_offset[static_cast<size_t>(p)] - 5.0, dp_fresh[static_cast<size_t>(p)], 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Zoo, EveryNormalizerVariant, ::testing::ValuesIn(testing::normalizer_variants()),
                         [](const auto& info) { return info.param.label; });

TEST(NormalizerVariants, EveryRegisteredNormalizerIsListed) {
  std::set<std::string> listed;
  for (const auto& v : testing::normalizer_variants()) listed.insert(v.config.name);
  for (const std::string& name : normalizer_registry().names())
    EXPECT_TRUE(listed.count(name)) << "add '" << name << "' to tests/support/normalizer_variants.h";
}

}  // namespace
}  // namespace sinklab
