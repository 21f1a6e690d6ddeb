// The statistics that read the per-row facts attention hands its observers (virtual mass, gate,
// value norms) and the ones that read |A| or every row: hand-built blocks with known answers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/observe/attention_observer.h"
#include "stats/sink_observer.h"
#include "stats/sink_statistics.h"
#include "tests/support/trigger_roles.h"

namespace sinklab {
namespace {

using sinklab::testing::trigger_roles;

constexpr int B = 2, H = 2, T = 4;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// probs batch-major [B, H, T, T], as the accumulator reads them by default.
void set_row(std::vector<float>& p, int b, int h, int i, std::vector<float> row) {
  for (size_t k = 0; k < row.size(); ++k) p[static_cast<size_t>(((b * H + h) * T + i) * T) + k] = row[k];
}

// Head 0 sinks like softmax (every weight a power of two, so float sums are exact); head 1 has
// weights of either sign and rows that add nothing to the output. Sample 0 has its trigger at j = 2,
// sample 1 at j = 3, so the no-op rows are (0, 1), (0, 3), (1, 1), (1, 2).
std::vector<float> probs() {
  std::vector<float> p(B * H * T * T, 0.0f);
  set_row(p, 0, 0, 0, {1});
  set_row(p, 0, 0, 1, {0.5f, 0.5f});
  set_row(p, 0, 0, 2, {0.25f, 0.25f, 0.5f});  // trigger
  set_row(p, 0, 0, 3, {0.5f, 0.25f, 0.25f, 0});
  set_row(p, 1, 0, 0, {1});
  set_row(p, 1, 0, 1, {0.75f, 0.25f});
  set_row(p, 1, 0, 2, {0.5f, 0, 0.5f});
  set_row(p, 1, 0, 3, {0.25f, 0.25f, 0.25f, 0.25f});  // trigger
  set_row(p, 0, 1, 0, {0.5f});
  set_row(p, 0, 1, 1, {0, 0});  // all zero
  set_row(p, 0, 1, 2, {-0.5f, 0.5f, 1});  // trigger
  set_row(p, 0, 1, 3, {-0.25f, 0.5f, 0, 0.25f});
  set_row(p, 1, 1, 1, {0, 0.5f});  // weight only on a key with a zero value: adds nothing
  set_row(p, 1, 1, 3, {0, 0.25f, 0.25f, 0.5f});  // trigger; rows 0 and 2 all zero
  return p;
}

// Per-row facts [H, B, T] head-major, as attention hands them over: head 0 sample 0, head 0
// sample 1, head 1 sample 0, head 1 sample 1.
const std::vector<float> kValueNorms = {2, 1, 1, 4, 1, 2, 2, 2, 1, 1, 1, 2, 2, 0, 1, 1};
const std::vector<float> kValueNormsV(H * B * T, 1.0f);
const std::vector<float> kGate = {0.5f, 0.5f, 1, 0.25f, 1, 0.75f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f,
                                  0.5f, 0.5f, 0.5f, 0.5f};
// Head 0 has a virtual slot; head 1 rows are unnormalized (undefined, NaN).
const std::vector<float> kVirtual = {0, 0.125f, 0, 0.25f, 0, 0.25f, 0.5f, 0,
                                     kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};

std::vector<HeadSinkStats> stats_with(const RowFacts& facts) {
  const std::vector<float> p = probs();
  const std::vector<uint8_t> roles = trigger_roles({2, 3}, T);
  SinkStatisticsAccumulator acc(1, H, T, 0.3);
  acc.add(0, p.data(), B, roles.data(), AttentionBlockLayout::batch_major(H, T), facts);
  return acc.finish();
}

RowFacts all_facts() { return {kVirtual.data(), kGate.data(), kValueNorms.data(), kValueNormsV.data()}; }

TEST(SinkRowFacts, SoftmaxLikeHeadWithEveryFact) {
  const HeadSinkStats s = stats_with(all_facts())[0];
  const double tol = 1e-12;
  EXPECT_NEAR(s.content_mass_nontrigger_mean, (0.5 + 0.5 + 0.25 + 0.5) / 4, tol);
  EXPECT_EQ(s.content_mass_nontrigger_mean, s.nonbos_mass_nontrigger_mean);
  // Content mass x gate: 0.5 x 0.5, 0.5 x 0.25, 0.25 x 0.75, 0.5 x 0.5.
  EXPECT_NEAR(s.effective_content_mass, (0.25 + 0.125 + 0.1875 + 0.25) / 4, tol);
  EXPECT_NEAR(s.virtual_mass_nontrigger_mean, (0.125 + 0.25 + 0.25 + 0.5) / 4, tol);
  // a_i0 ||u_0|| / sum_k a_ik ||u_k||: 1/1.5, 1/1.5, 0.75/1.25, 0.5/1.5.
  EXPECT_NEAR(s.value_weighted_bos_share, (2.0 / 3 + 2.0 / 3 + 0.6 + 1.0 / 3) / 4, tol);
  // ||v_k|| = 1: the share is the sink mass over the row mass.
  EXPECT_NEAR(s.value_weighted_bos_share_v, (0.5 + 0.5 + 0.75 + 0.5) / 4, tol);
  EXPECT_EQ(s.value_weighted_zero_rows, 0.0);
  EXPECT_NEAR(s.gate_nontrigger_mean, (0.5 + 0.25 + 0.75 + 0.5) / 4, tol);
  EXPECT_NEAR(s.gate_trigger_mean, (1.0 + 0.5) / 2, tol);
  // Every row but the sink key's own, the trigger rows too: 0.5, 1, 0.25 and 0.75, 0.5, 0.5.
  EXPECT_NEAR(s.gate_mean, (0.5 + 1 + 0.25 + 0.75 + 0.5 + 0.5) / 6, tol);
  // Every row, per sample: (1 + 0.5 + 0.25 + 0.5) / 4 and (1 + 0.75 + 0.5 + 0.25) / 4.
  EXPECT_NEAR(s.sink_score, (0.5625 + 0.625) / 2, tol);
  EXPECT_EQ(s.sink_score_abs, s.sink_score);  // no negative weights
  EXPECT_EQ(s.bos_mass_by_row, (std::vector<double>{1.0, 0.625, 0.375, 0.375}));
}

TEST(SinkRowFacts, SignedHeadWithRowsThatAddNothing) {
  const HeadSinkStats s = stats_with(all_facts())[1];
  const double tol = 1e-12;
  // Row mass minus sink mass: 0, 0.5 - (-0.25), 0.5, 0.
  EXPECT_NEAR(s.content_mass_nontrigger_mean, 1.25 / 4, tol);
  EXPECT_NEAR(s.effective_content_mass, 0.5 * 1.25 / 4, tol);
  EXPECT_TRUE(std::isnan(s.virtual_mass_nontrigger_mean)) << "undefined rows are null, never 0";
  // Only (0, 3) adds anything through W_O: |a| ||u|| = 0.25, 0.5, 0, 0.5 -> 0.25 / 1.25. The three
  // others (all-zero rows, and weight on a key whose value is 0) are counted, not averaged.
  EXPECT_NEAR(s.value_weighted_bos_share, 0.2, tol);
  EXPECT_NEAR(s.value_weighted_zero_rows, 0.75, tol);
  // With ||v_k|| = 1 the row (1, 1) adds something: 0.25 / 1 and 0 / 0.5.
  EXPECT_NEAR(s.value_weighted_bos_share_v, (0.25 + 0.0) / 2, tol);
  EXPECT_NEAR(s.gate_nontrigger_mean, 0.5, tol);
  EXPECT_NEAR(s.gate_trigger_mean, 0.5, tol);
  EXPECT_NEAR(s.gate_mean, 0.5, tol);
  // A / row sum: sample 0 rows 1, 0, -0.5, -0.5; sample 1 all 0 (no positive mass).
  EXPECT_NEAR(s.sink_score, 0.0, tol);
  // |A| / sum |A|: sample 0 rows 1, 0, 0.5 / 2, 0.25 / 1; sample 1 all 0.
  EXPECT_NEAR(s.sink_score_abs, (1.0 + 0.25 + 0.25) / 4 / 2, tol);
  EXPECT_EQ(s.bos_mass_by_row, (std::vector<double>{0.25, 0.0, -0.25, -0.125}));
}

TEST(SinkRowFacts, MissingFactsLeaveTheirStatisticsNull) {
  for (const HeadSinkStats& s : stats_with({})) {
    for (const double v : {s.virtual_mass_nontrigger_mean, s.value_weighted_bos_share, s.value_weighted_bos_share_v,
                           s.value_weighted_zero_rows, s.gate_nontrigger_mean, s.gate_trigger_mean, s.gate_mean})
      EXPECT_TRUE(std::isnan(v)) << v;
    // Without a gate the effective content mass is the content mass, bit for bit.
    EXPECT_EQ(s.effective_content_mass, s.content_mass_nontrigger_mean);
    EXPECT_FALSE(std::isnan(s.sink_score_abs));
    EXPECT_EQ(s.bos_mass_by_row.size(), static_cast<size_t>(T));
  }
  // Value norms without a gate or virtual mass: only the value-weighted shares exist.
  const HeadSinkStats norms_only = stats_with({nullptr, nullptr, kValueNorms.data(), kValueNormsV.data()})[0];
  EXPECT_NEAR(norms_only.value_weighted_bos_share, (2.0 / 3 + 2.0 / 3 + 0.6 + 1.0 / 3) / 4, 1e-12);
  EXPECT_TRUE(std::isnan(norms_only.gate_nontrigger_mean));
  EXPECT_TRUE(std::isnan(norms_only.virtual_mass_nontrigger_mean));
}

TEST(SinkRowFacts, OneUndefinedNoOpRowMakesTheVirtualMassNull) {
  std::vector<float> virtual_mass(kVirtual.begin(), kVirtual.begin() + B * T);  // head 0's numbers
  virtual_mass.resize(H * B * T, 0.0f);                                          // head 1: all 0
  RowFacts facts{virtual_mass.data(), nullptr, nullptr, nullptr};
  EXPECT_EQ(stats_with(facts)[1].virtual_mass_nontrigger_mean, 0.0);
  virtual_mass[static_cast<size_t>((1 * B + 1) * T + 2)] = kNaN;  // head 1, sample 1, no-op row 2
  const auto s = stats_with(facts);
  EXPECT_TRUE(std::isnan(s[1].virtual_mass_nontrigger_mean));
  EXPECT_NEAR(s[0].virtual_mass_nontrigger_mean, 1.125 / 4, 1e-12);
  // A NaN on a row that is not a no-op row (head 0, sample 0, trigger row 2) is not read.
  virtual_mass[2] = kNaN;
  EXPECT_NEAR(stats_with(facts)[0].virtual_mass_nontrigger_mean, 1.125 / 4, 1e-12);
}

TEST(SinkRowFacts, BosMassByRowAveragesOverEverySampleOfEveryCall) {
  const std::vector<float> p = probs();
  const std::vector<uint8_t> roles = trigger_roles({2, 3}, T);
  SinkStatisticsAccumulator acc(1, H, T, 0.3);
  acc.add(0, p.data(), 1, roles.data());                       // sample 0
  acc.add(0, p.data(), B, roles.data());                       // samples 0 and 1
  const std::vector<double> rows = acc.finish()[0].bos_mass_by_row;  // sample 0 counted twice
  EXPECT_EQ(rows, (std::vector<double>{1.0, (0.5 * 2 + 0.75) / 3, (0.25 * 2 + 0.5) / 3, (0.5 * 2 + 0.25) / 3}));
  acc.reset();
  acc.add(0, p.data() + H * T * T, 1, roles.data() + T);  // sample 1 alone
  EXPECT_EQ(acc.finish()[0].bos_mass_by_row, (std::vector<double>{1.0, 0.75, 0.5, 0.25}));
}

// The observer hands the view's per-row arrays to the accumulator as they are, with the head-major
// layout attention uses, and asks for value norms only when it keeps statistics.
TEST(SinkRowFacts, TheObserverPassesTheViewsFacts) {
  const std::vector<float> batch_major = probs();
  std::vector<float> head_major(batch_major.size());
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int e = 0; e < T * T; ++e)
        head_major[static_cast<size_t>((h * B + b) * T * T + e)] =
            batch_major[static_cast<size_t>((b * H + h) * T * T + e)];
  const std::vector<uint8_t> roles = trigger_roles({2, 3}, T);
  SinkStatisticsAccumulator acc(1, H, T, 0.3);
  SinkObserver observer(&acc, nullptr);
  EXPECT_TRUE(observer.wants_value_norms());
  observer.begin_batch(roles.data(), B);
  AttentionView view{0, B, H, T, head_major.data(), nullptr, AttentionBlockLayout::head_major(B, T)};
  view.virtual_mass = kVirtual.data();
  view.gate = kGate.data();
  view.value_norms = kValueNorms.data();
  view.value_norms_v = kValueNormsV.data();
  observer.on_attention(view);
  const auto got = acc.finish(), expected = stats_with(all_facts());
  for (size_t h = 0; h < got.size(); ++h) {
    for (const HeadStatistic& stat : kHeadStatistics) {
      if (stat.is_flag()) continue;
      const double a = got[h].*stat.number, e = expected[h].*stat.number;
      EXPECT_TRUE(a == e || (std::isnan(a) && std::isnan(e))) << stat.name << " head " << h << ": " << a << " vs " << e;
    }
    EXPECT_EQ(got[h].bos_mass_by_row, expected[h].bos_mass_by_row);
  }
  AttentionMapAccumulator maps(1, H, T);
  EXPECT_FALSE(SinkObserver(nullptr, &maps).wants_value_norms());
}

}  // namespace
}  // namespace sinklab
