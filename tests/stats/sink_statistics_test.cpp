#include "stats/sink_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/support/trigger_roles.h"

namespace sinklab {
namespace {

constexpr int B = 2, H = 2, T = 4;

using sinklab::testing::trigger_roles;

float& at(std::vector<float>& p, int b, int h, int i, int k) { return p[((b * H + h) * T + i) * T + k]; }

void set_row(std::vector<float>& p, int b, int h, int i, std::vector<float> row) {
  for (int k = 0; k < T; ++k) at(p, b, h, i, k) = row[static_cast<size_t>(k)];
}

double ent(std::vector<double> p) {
  double e = 0;
  for (double x : p) e -= x * std::log(x);
  return e;
}

// Head 0 sinks like softmax, head 1 behaves like relu (zero rows); sample 0 has its trigger at
// j = 2, sample 1 at j = 3. Every expected number below is worked out by hand from these rows.
std::vector<float> tiny_probs() {
  std::vector<float> p(B * H * T * T, 0.0f);
  set_row(p, 0, 0, 0, {1, 0, 0, 0});
  set_row(p, 0, 0, 1, {0.9f, 0.1f, 0, 0});
  set_row(p, 0, 0, 2, {0.1f, 0.5f, 0.4f, 0});  // trigger
  set_row(p, 0, 0, 3, {0.8f, 0.1f, 0.05f, 0.05f});
  set_row(p, 1, 0, 0, {1, 0, 0, 0});
  set_row(p, 1, 0, 1, {0.6f, 0.4f, 0, 0});
  set_row(p, 1, 0, 2, {0.7f, 0.2f, 0.1f, 0});
  set_row(p, 1, 0, 3, {0.1f, 0.3f, 0.3f, 0.3f});  // trigger
  set_row(p, 0, 1, 0, {0.2f, 0, 0, 0});
  set_row(p, 0, 1, 2, {0.2f, 0.6f, 0.4f, 0});  // trigger; rows 1 and 3 stay all-zero
  set_row(p, 1, 1, 1, {0, 0.5f, 0, 0});        // row 0 and row 2 all-zero
  set_row(p, 1, 1, 3, {0, 0.2f, 0.2f, 0.5f});  // trigger
  return p;
}

TEST(SinkStatistics, HandComputedSoftmaxLikeAndReluLikeHeads) {
  const std::vector<float> probs = tiny_probs();
  const std::vector<uint8_t> trigger = trigger_roles({2, 3}, T);
  SinkStatisticsAccumulator acc(1, H, T, 0.3);
  acc.add(0, probs.data(), B, trigger.data());
  const std::vector<HeadSinkStats> s = acc.finish();
  ASSERT_EQ(s.size(), 2u);
  const double tol = 1e-6;

  const HeadSinkStats& sm = s[0];
  EXPECT_EQ(sm.layer, 0);
  EXPECT_EQ(sm.head, 0);
  EXPECT_NEAR(sm.bos_mass_nontrigger_mean, (0.9 + 0.8 + 0.6 + 0.7) / 4, tol);
  EXPECT_NEAR(sm.bos_mass_nontrigger_min, 0.6, tol);
  EXPECT_NEAR(sm.mass_nontrigger_mean, 1.0, tol);
  EXPECT_NEAR(sm.nonbos_mass_nontrigger_mean, 0.25, tol);
  EXPECT_NEAR(sm.trigger_bos, 0.1, tol);
  EXPECT_NEAR(sm.trigger_keys_mean, (0.45 + 0.3) / 2, tol);
  EXPECT_NEAR(sm.trigger_keys_max_deviation, (0.1 + 1.0 / 30) / 2, tol);
  EXPECT_NEAR(sm.sink_score, (0.7 + 0.6) / 2, tol);  // (1+.9+.1+.8)/4 and (1+.6+.7+.1)/4
  EXPECT_TRUE(sm.sink_head);
  const double e = (ent({0.9, 0.1}) + ent({0.8, 0.1, 0.05, 0.05}) + ent({0.6, 0.4}) + ent({0.7, 0.2, 0.1})) / 4;
  EXPECT_NEAR(sm.entropy_nontrigger, e, tol);

  const HeadSinkStats& relu = s[1];
  EXPECT_EQ(relu.head, 1);
  EXPECT_NEAR(relu.bos_mass_nontrigger_mean, 0.0, tol);
  EXPECT_NEAR(relu.bos_mass_nontrigger_min, 0.0, tol);
  EXPECT_NEAR(relu.mass_nontrigger_mean, 0.5 / 4, tol);
  EXPECT_NEAR(relu.nonbos_mass_nontrigger_mean, 0.5 / 4, tol);
  EXPECT_NEAR(relu.trigger_bos, 0.1, tol);
  EXPECT_NEAR(relu.trigger_keys_mean, (0.5 + 0.3) / 2, tol);
  EXPECT_NEAR(relu.trigger_keys_max_deviation, (0.1 + 1.0 / 6) / 2, tol);
  // Sample 0: rows normalized -> row 0 gives 1, trigger row 0.2/1.2; zero rows count 0. Sample 1: 0.
  EXPECT_NEAR(relu.sink_score, (1.0 + 0.2 / 1.2) / 4 / 2, tol);
  EXPECT_FALSE(relu.sink_head);
  EXPECT_NEAR(relu.entropy_nontrigger, 0.0, tol);  // one one-hot row, the rest all-zero
  EXPECT_DOUBLE_EQ(sink_rate(s), 0.5);
}

// Attention with a NaN row (a diverged model) has statistics that are not numbers: NaN (null in JSON),
// not the 0 or inf that sums and minima skipping the NaNs would give.
TEST(SinkStatistics, ANonFiniteRowMakesItsHeadsStatisticsNaN) {
  std::vector<float> probs = tiny_probs();
  at(probs, 0, 0, 1, 0) = std::numeric_limits<float>::quiet_NaN();  // head 0, a no-op row
  const std::vector<uint8_t> trigger = trigger_roles({2, 3}, T);
  SinkStatisticsAccumulator acc(1, H, T, 0.3);
  acc.add(0, probs.data(), B, trigger.data());
  const std::vector<HeadSinkStats> s = acc.finish();
  EXPECT_TRUE(std::isnan(s[0].bos_mass_nontrigger_mean));
  EXPECT_TRUE(std::isnan(s[0].bos_mass_nontrigger_min));
  EXPECT_TRUE(std::isnan(s[0].entropy_nontrigger));
  EXPECT_FALSE(s[0].sink_head) << "NaN is not above eps";
  EXPECT_FALSE(std::isnan(s[1].bos_mass_nontrigger_mean)) << "the other head's rows are finite";
}

TEST(SinkStatistics, SplittingTheBatchGivesTheSameAnswer) {
  const std::vector<float> probs = tiny_probs();
  const std::vector<uint8_t> trigger = trigger_roles({2, 3}, T);
  SinkStatisticsAccumulator whole(1, H, T, 0.3), parts(1, H, T, 0.3);
  whole.add(0, probs.data(), B, trigger.data());
  parts.add(0, probs.data(), 1, trigger.data());
  parts.add(0, probs.data() + H * T * T, 1, trigger.data() + T);
  EXPECT_EQ(parts.samples(0), 2);
  const auto a = whole.finish(), b = parts.finish();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a[i].bos_mass_nontrigger_mean, b[i].bos_mass_nontrigger_mean, 1e-12);
    EXPECT_EQ(a[i].bos_mass_nontrigger_min, b[i].bos_mass_nontrigger_min);
    EXPECT_NEAR(a[i].sink_score, b[i].sink_score, 1e-12);
    EXPECT_NEAR(a[i].entropy_nontrigger, b[i].entropy_nontrigger, 1e-12);
    EXPECT_NEAR(a[i].trigger_keys_max_deviation, b[i].trigger_keys_max_deviation, 1e-12);
  }
}

TEST(SinkStatistics, HeadMajorLayoutGivesTheSameAnswer) {
  // The same weights stored the way attention keeps them, [H, B, T, T].
  const std::vector<float> batch_major = tiny_probs();
  std::vector<float> head_major(batch_major.size());
  const auto layout = AttentionBlockLayout::head_major(B, T);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int e = 0; e < T * T; ++e)
        head_major[static_cast<size_t>((h * B + b) * T * T + e)] =
            batch_major[static_cast<size_t>((b * H + h) * T * T + e)];
  const std::vector<uint8_t> trigger = trigger_roles({2, 3}, T);
  SinkStatisticsAccumulator expected(1, H, T, 0.3), got(1, H, T, 0.3);
  expected.add(0, batch_major.data(), B, trigger.data());
  got.add(0, head_major.data(), B, trigger.data(), layout);
  const auto a = expected.finish(), b = got.finish();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].bos_mass_nontrigger_mean, b[i].bos_mass_nontrigger_mean) << "head " << i;
    EXPECT_EQ(a[i].trigger_bos, b[i].trigger_bos) << "head " << i;
    EXPECT_EQ(a[i].sink_score, b[i].sink_score) << "head " << i;
    EXPECT_EQ(a[i].entropy_nontrigger, b[i].entropy_nontrigger) << "head " << i;
  }
  // Read batch-major, the head-major buffer mixes heads and samples: the answer changes.
  SinkStatisticsAccumulator misread(1, H, T, 0.3);
  misread.add(0, head_major.data(), B, trigger.data());
  EXPECT_NE(misread.finish()[1].bos_mass_nontrigger_mean, a[1].bos_mass_nontrigger_mean);
}

TEST(SinkStatistics, LayersAreReportedLayerMajorAndResetClears) {
  const std::vector<float> probs = tiny_probs();
  const std::vector<uint8_t> trigger = trigger_roles({2, 3}, T);
  SinkStatisticsAccumulator acc(2, H, T, 0.3);
  acc.add(0, probs.data(), B, trigger.data());
  EXPECT_THROW(acc.finish(), SinkStatisticsError);  // layer 1 has no samples yet
  acc.add(1, probs.data(), 1, trigger.data());
  const auto s = acc.finish();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[2].layer, 1);
  EXPECT_EQ(s[2].head, 0);
  EXPECT_EQ(s[3].head, 1);
  EXPECT_NEAR(s[2].bos_mass_nontrigger_mean, (0.9 + 0.8) / 2, 1e-6);  // only sample 0 went in
  acc.reset();
  EXPECT_EQ(acc.samples(0), 0);
  EXPECT_THROW(acc.finish(), SinkStatisticsError);
}

TEST(SinkStatistics, UniformAttentionScoresTheBaseline) {
  const int t = 16;
  std::vector<float> probs(static_cast<size_t>(t) * t, 0.0f);
  for (int i = 0; i < t; ++i)
    for (int k = 0; k <= i; ++k) probs[static_cast<size_t>(i) * t + k] = 1.0f / static_cast<float>(i + 1);
  const std::vector<uint8_t> trigger = trigger_roles({7}, t);
  SinkStatisticsAccumulator acc(1, 1, t, 0.3);
  acc.add(0, probs.data(), 1, trigger.data());
  const auto s = acc.finish();
  EXPECT_NEAR(s[0].sink_score, uniform_causal_baseline(t), 1e-6);
  EXPECT_NEAR(s[0].trigger_keys_max_deviation, 1.0 / 7 - 1.0 / 8, 1e-6);
  EXPECT_FALSE(s[0].sink_head);
}

// The sink-head rule: alpha_0 renormalizes each row, so on its own it calls a head that parks a
// crumb of an almost empty row on BOS a sink. The sink keys must also get more than eps of mass.
// One sample, T = 4, trigger at 2; head 0 is relu-like (no-op rows spend 5e-4, all of it on BOS; the
// trigger row works), head 1 softmax-like (rows sum to 1, 0.9 on BOS on the no-op rows).
TEST(SinkStatistics, ASinkHeadsRowsMustSpendMassNotOnlyShareIt) {
  constexpr int heads = 2, t = 4;
  std::vector<float> probs(static_cast<size_t>(heads) * t * t, 0.0f);
  const auto row = [&probs](int h, int i, std::vector<float> values) {
    for (size_t k = 0; k < values.size(); ++k) probs[(static_cast<size_t>(h) * t + i) * t + k] = values[k];
  };
  row(0, 0, {5e-4f});
  row(0, 1, {5e-4f, 0});
  row(0, 2, {0, 0.5f, 0.5f});  // trigger
  row(0, 3, {5e-4f, 0, 0, 0});
  row(1, 0, {1});
  row(1, 1, {0.9f, 0.1f});
  row(1, 2, {0.1f, 0.45f, 0.45f});  // trigger
  row(1, 3, {0.9f, 0.05f, 0.025f, 0.025f});
  const std::vector<uint8_t> trigger = trigger_roles({2}, t);
  SinkStatisticsAccumulator acc(1, heads, t, 0.3);
  acc.add(0, probs.data(), 1, trigger.data());
  const std::vector<HeadSinkStats> s = acc.finish();

  const HeadSinkStats& relu = s[0];
  EXPECT_NEAR(relu.sink_score, 3.0 / 4, 1e-6);  // three rows put all their mass on BOS: Gu's proxy says "sink"
  EXPECT_NEAR(relu.mass_nontrigger_mean, 5e-4, 1e-9);
  EXPECT_FALSE(relu.sink_head) << "BOS gets 3 x 5e-4 / 4 of the attention: no sink";
  const HeadSinkStats& softmax = s[1];
  EXPECT_NEAR(softmax.sink_score, (1 + 0.9 + 0.1 + 0.9) / 4, 1e-6);
  EXPECT_TRUE(softmax.sink_head);
  EXPECT_DOUBLE_EQ(sink_rate(s), 0.5);
}

// Both halves of the rule at eps = 0.3. Every row puts `bos` on BOS and `rest` spread over its other keys:
// rows of 0.4, all on BOS, are a sink, rows of 0.2 are not; rows of mass 5 with 0.5 on BOS are not either
// (alpha_0 = (1 + 5 x 0.1) / 6 = 0.25: only BOS's own row 0 puts more than 0.1 of itself there).
TEST(SinkStatistics, TheSinkHeadRuleNeedsMassAndShareAboveEps) {
  const auto flag_of = [](int t, float bos, float rest) {
    std::vector<float> probs(static_cast<size_t>(t) * t, 0.0f);
    for (int i = 0; i < t; ++i) {
      probs[static_cast<size_t>(i) * t] = bos;
      for (int k = 1; k <= i; ++k) probs[static_cast<size_t>(i) * t + k] = rest / static_cast<float>(i);
    }
    const std::vector<uint8_t> roles = trigger_roles({1}, t);
    SinkStatisticsAccumulator acc(1, 1, t, 0.3);
    acc.add(0, probs.data(), 1, roles.data());
    return acc.finish()[0].sink_head;
  };
  EXPECT_TRUE(flag_of(3, 0.4f, 0.0f));
  EXPECT_FALSE(flag_of(3, 0.2f, 0.0f));
  EXPECT_FALSE(flag_of(6, 0.5f, 4.5f));
}

TEST(SinkStatistics, BaselineIsHarmonicNumberOverT) {
  EXPECT_NEAR(uniform_causal_baseline(16), 0.2113, 1e-4);
  EXPECT_NEAR(uniform_causal_baseline(64), 0.0741, 1e-4);
  EXPECT_DOUBLE_EQ(uniform_causal_baseline(1), 1.0);
  EXPECT_DOUBLE_EQ(uniform_causal_baseline(2), 0.75);
  EXPECT_THROW(uniform_causal_baseline(0), SinkStatisticsError);
}

TEST(SinkStatistics, BadInputsGiveClearErrors) {
  EXPECT_THROW(SinkStatisticsAccumulator(1, 1, 2, 0.3), SinkStatisticsError);
  EXPECT_THROW(SinkStatisticsAccumulator(0, 1, 16, 0.3), SinkStatisticsError);
  EXPECT_THROW(SinkStatisticsAccumulator(1, 1, 16, 1.5), SinkStatisticsError);
  const std::vector<float> probs = tiny_probs();
  SinkStatisticsAccumulator acc(1, H, T, 0.3);
  std::vector<uint8_t> bad = trigger_roles({2, 3}, T);
  bad[T + 3] = 8;  // no such role flag
  try {
    acc.add(0, probs.data(), B, bad.data());
    FAIL() << "role byte 8 was accepted";
  } catch (const SinkStatisticsError& e) {
    EXPECT_NE(std::string(e.what()).find("role byte 8 at position 3 of sample 1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(acc.samples(0), 0);  // nothing was half-added
  const std::vector<uint8_t> ok = trigger_roles({2, 3}, T);
  EXPECT_THROW(acc.add(1, probs.data(), B, ok.data()), SinkStatisticsError);
  EXPECT_THROW(sink_rate({}), SinkStatisticsError);
}

}  // namespace
}  // namespace sinklab
