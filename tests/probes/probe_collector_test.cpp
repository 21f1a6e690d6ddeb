// The probes on synthetic rows (the same collector `sinklab probe` runs on a model): every invariant is
// checked and holds, every table has its rows; the checks are not vacuous: rows whose weights do not
// come from their logits are reported with their layer, head, window and row.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "probes/probe_outputs.h"
#include "probes/probe_run.h"

namespace sinklab::probes {
namespace {

ProbeSettings small_settings() {
  ProbeSettings s;
  s.windows = 2;
  s.n_values = {1, 2, 5, 10, 20};
  s.temperatures = {1e-3, 1e-2, 0.1, 1, 10, 100};
  s.mc_samples = 16;
  s.seed = 7;
  return s;
}

TEST(ProbeCollector, SyntheticRowsPassEveryInvariant) {
  std::ostringstream progress;
  const ProbeSettings s = small_settings();
  const ProbeResults r = probe_synthetic(s, {16, 32, 64}, SyntheticShape{}, progress);
  EXPECT_EQ(r.violations(), 0);
  EXPECT_GT(r.checks_d_max, 1000);
  EXPECT_EQ(r.checks_vanishing, 2 * 4 * 2 * 64) << "every row of L max";
  EXPECT_GT(r.checks_separability, 100);
  EXPECT_GT(r.checks_gradient, 100);
  EXPECT_EQ(r.rows_seen, 2 * 4 * 2 * (16 + 32 + 64));
  EXPECT_NE(progress.str().find("probe: L = 64 (3/3), window 2/2"), std::string::npos) << progress.str();

  // Per-head means: N = 1 separability is 1; d_true > 0; E_main <= E_up.
  const int last = static_cast<int>(r.plans.size()) - 1;
  for (std::size_t e = 0; e < r.plans.back().entries.size(); ++e) {
    const NEntry& entry = r.plans.back().entries[e];
    for (const HeadMeans& h : head_means(r, last, static_cast<int>(e))) {
      ASSERT_GT(h.rows, 0);
      EXPECT_GT(h.d_true, 0.0);
      EXPECT_LE(h.e_main, h.e_up * (1 + 1e-12));
      if (entry.distance_file) {
        EXPECT_LE(h.d_true, h.d_max);
        EXPECT_FALSE(std::isnan(h.e_mc)) << "N " << entry.N;
      }
      if (entry.N == 1) {
        EXPECT_EQ(h.separability, 1.0);
      }
    }
  }
  // Same seed, same numbers; thread count does not enter (heads write their own slots).
  const ProbeResults again = probe_synthetic(s, {16, 32, 64}, SyntheticShape{}, progress);
  EXPECT_EQ(again.sums[2][5].d_true, r.sums[2][5].d_true);
  EXPECT_EQ(again.gradient_sums, r.gradient_sums);
}

TEST(ProbeCollector, KsRowsCoverEveryLengthOfTheGrid) {
  std::ostringstream progress;
  const ProbeSettings s = small_settings();
  const ProbeResults r = probe_synthetic(s, {16, 32, 64}, SyntheticShape{}, progress);
  const std::vector<CriticalRow> rows = critical_rows(r, s);
  int at_64 = 0;
  for (const CriticalRow& c : rows) {
    EXPECT_EQ(c.heads, 8);
    EXPECT_TRUE(c.exact);
    EXPECT_GE(c.p_value, 0.0);
    EXPECT_LE(c.p_value, 1.0);
    at_64 += c.L == 64;
  }
  EXPECT_EQ(at_64, static_cast<int>(critical_n_grid(64).size()));
}

TEST(ProbeCollector, WeightsThatDoNotComeFromTheirLogitsAreViolations) {
  // One softmax layer of 2 heads over 8 rows whose weights are one-hot on the last key while every logit
  // is 0 (q = 0): P1 says every weight is 1/n.
  ProbeSettings s = small_settings();
  s.windows = 1;
  ProbeCollector collector(s, {8}, 1, 2, RowKind{});
  const int H = 2, T = 8, D = 2;
  std::vector<float> q(H * T * D, 0.0f), k(H * T * D, 1.0f), v(H * T * D, 0.5f), x(T * 4, 1.0f), w(H * T * T, 0.0f);
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < T; ++t) w[static_cast<std::size_t>((h * T + t) * T + t)] = 1.0f;
  AttentionView view{0, 1, H, T, w.data(), nullptr, AttentionBlockLayout::head_major(1, T)};
  view.queries = q.data();
  view.keys = k.data();
  view.values = v.data();
  view.inputs = x.data();
  view.head_dim = D;
  view.model_dim = 4;
  collector.begin_pass(0, 0);
  collector.on_attention(view);
  const ProbeResults& r = collector.results();
  EXPECT_EQ(r.violations_vanishing, H * (T - 1)) << "row 0 (one key) is fine";
  ASSERT_FALSE(r.first_violations.empty());
  EXPECT_EQ(r.first_violations.front().what, "P1 upper bound (n max a <= e^{2 Delta/T})");
  EXPECT_EQ(r.first_violations.front().layer, 0);
  EXPECT_GE(r.first_violations.front().row, 1);

  // A non-softmax model: the same rows are not checked against P1.
  ProbeCollector other(s, {8}, 1, 2, RowKind{false, 1.0, NormalizerConfig{"relu", {}}});
  other.begin_pass(0, 0);
  other.on_attention(view);
  EXPECT_EQ(other.results().checks_vanishing, 0);
  EXPECT_EQ(other.results().violations_vanishing, 0);
}

}  // namespace
}  // namespace sinklab::probes
