// ExtremeTokenMeter on hand-built attention, q/k/v and residual streams: every number is worked out in
// the comments from the inputs.
#include "stats/extreme_tokens.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace sinklab {
namespace {

// One head, one window, T = 3, D = 2.
struct HandBuilt {
  // Rows of A: alpha_0 = (1 + 0.75 + 0.5) / 3 = 0.75, alpha_1 = (0.25 + 0.25) / 2 = 0.25, alpha_2 = 0.25.
  std::vector<float> weights = {1, 0, 0, 0.75f, 0.25f, 0, 0.5f, 0.25f, 0.25f};
  std::vector<float> queries = {7, 7, 1, 0, 0, 1};  // q_0 is never read (no key before it but k_0)
  std::vector<float> keys = {3, 4, 1, 0, 0, 2};     // norms 5, 1, 2
  std::vector<float> values = {0, 1, 3, 4, 0, 3};   // norms 1, 5, 3
  std::vector<float> slot = {0.2f, 0.4f, 0.6f};     // the key-bias slot's weight per row: mean 0.4
  // h_0 = (10, 0), h_1 = (1, -1), h_2 = (0.5, 2): |h| sorted 0 0.5 1 1 2 10, median 1, max 10 at (0, 0);
  // norms 10, sqrt 2, sqrt 4.25: residual peak 10 / sqrt 4.25.
  std::vector<float> residual = {10, 0, 1, -1, 0.5f, 2};

  AttentionView view() const {
    AttentionView v;
    v.layer = 0;
    v.batch = 1;
    v.heads = 1;
    v.seq_len = 3;
    v.head_dim = 2;
    v.weights = weights.data();
    v.layout = AttentionBlockLayout::head_major(1, 3);
    v.queries = queries.data();
    v.keys = keys.data();
    v.values = values.data();
    v.virtual_mass = slot.data();
    return v;
  }
  Tensor resid() { return Tensor(residual.data(), nullptr, Shape({1, 3, 2})); }
};

TEST(ExtremeTokenMeter, HeadNumbersAreTheHandComputedOnes) {
  HandBuilt in;
  ExtremeTokenMeter meter(1, 1, 0.5, /*key_bias_slot=*/true);
  meter.on_attention(in.view());
  const ExtremeTokenStats s = meter.finish();
  ASSERT_EQ(s.heads.size(), 1u);
  const HeadExtremes& h = s.heads[0];
  EXPECT_DOUBLE_EQ(h.alpha[0], 0.75);
  EXPECT_DOUBLE_EQ(h.alpha[1], 0.25);
  EXPECT_DOUBLE_EQ(h.alpha[2], 0.25);
  EXPECT_DOUBLE_EQ(h.alpha[3], 0.0);  // no key 3 at T = 3
  EXPECT_NEAR(h.alpha_slot, 0.4, 1e-7);
  EXPECT_DOUBLE_EQ(h.value_drain, 1.0 / 4.0);     // ||v_0|| / mean(5, 3)
  EXPECT_DOUBLE_EQ(h.key_norm_ratio, 5.0 / 1.5);  // ||k_0|| / mean(1, 2)
  // cos(q_1, k_0) = 3/5, cos(q_2, k_0) = 4/5; others: cos(q_1, k_1) = 1, cos(q_2, k_1) = 0, cos(q_2, k_2) = 1.
  EXPECT_DOUBLE_EQ(h.key_cos_first, 0.7);
  EXPECT_DOUBLE_EQ(h.key_cos_others, 2.0 / 3.0);
  EXPECT_EQ(s.sink_rate[0], 1.0);  // 0.75 > eps 0.5
  EXPECT_EQ(s.sink_rate[1], 0.0);
  EXPECT_EQ(s.sink_rate_slot, 0.0);  // 0.4 < 0.5
  EXPECT_DOUBLE_EQ(s.uniform_baseline, (1.0 + 0.5 + 1.0 / 3.0) / 3.0);
  EXPECT_EQ(s.seq_len, 3);
  EXPECT_EQ(s.windows, 1);
  EXPECT_TRUE(s.layers.empty());  // no residual stream was handed over
}

TEST(ExtremeTokenMeter, AlphaIsAShareOfUnnormalizedRows) {
  HandBuilt in;
  // Every visible key weighted 0.5 (unnormalized sigmoid near 0): row i gives key 0 a share 1 / (i + 1),
  // alpha_0 = (1 + 1/2 + 1/3) / 3, alpha_1 = (1/2 + 1/3) / 2: the uniform baseline, no sink. Row 0 of a
  // second pass has no mass at all and shares nothing.
  in.weights = {0.5f, 0, 0, 0.5f, 0.5f, 0, 0.5f, 0.5f, 0.5f};
  ExtremeTokenMeter meter(1, 1, 0.3, false);
  meter.on_attention(in.view());
  const ExtremeTokenStats s = meter.finish();
  EXPECT_DOUBLE_EQ(s.heads[0].alpha[0], (1.0 + 0.5 + 1.0 / 3.0) / 3.0);
  EXPECT_DOUBLE_EQ(s.heads[0].alpha[1], (0.5 + 1.0 / 3.0) / 2.0);
  EXPECT_DOUBLE_EQ(s.heads[0].alpha[0], s.uniform_baseline);
  in.weights = {0, 0, 0, 0.25f, 0.75f, 0, 0.5f, 0.25f, 0.25f};
  ExtremeTokenMeter empty_row(1, 1, 0.3, false);
  empty_row.on_attention(in.view());
  EXPECT_DOUBLE_EQ(empty_row.finish().heads[0].alpha[0], (0.0 + 0.25 + 0.5) / 3.0);
}

TEST(ExtremeTokenMeter, WithoutASlotItsShareIsUndefined) {
  HandBuilt in;
  ExtremeTokenMeter meter(1, 1, 0.3, /*key_bias_slot=*/false);
  meter.on_attention(in.view());
  const ExtremeTokenStats s = meter.finish();
  EXPECT_TRUE(std::isnan(s.heads[0].alpha_slot));
  EXPECT_TRUE(std::isnan(s.sink_rate_slot));
}

TEST(ExtremeTokenMeter, ResidualNumbersAreTheHandComputedOnes) {
  HandBuilt in;
  ExtremeTokenMeter meter(1, 1, 0.3, false);
  meter.on_attention(in.view());
  meter.on_activation("blocks.0.resid_mid", in.resid());  // not the block's output: ignored
  meter.on_activation("blocks.0.resid_post", in.resid());
  const ExtremeTokenStats s = meter.finish();
  ASSERT_EQ(s.layers.size(), 1u);
  const LayerExtremes& l = s.layers[0];
  EXPECT_DOUBLE_EQ(l.median_abs, 1.0);
  EXPECT_DOUBLE_EQ(l.max_abs, 10.0);
  EXPECT_DOUBLE_EQ(l.massive_ratio, 10.0);
  EXPECT_EQ(l.max_position, 0);
  EXPECT_EQ(l.max_channel, 0);
  EXPECT_NEAR(l.residual_peak, 10.0 / std::sqrt(4.25), 1e-6);
  ASSERT_EQ(l.top.size(), 3u);  // 10 at (0, 0), 2 at (2, 1), then the tie of 1 at (1, 0) and (1, 1): the first
  EXPECT_EQ(l.top[0].position, 0);
  EXPECT_EQ(l.top[0].channel, 0);
  EXPECT_EQ(l.top[1].position, 2);
  EXPECT_EQ(l.top[1].channel, 1);
  EXPECT_DOUBLE_EQ(l.top[1].ratio, 2.0);
  EXPECT_EQ(l.top[2].position, 1);
  EXPECT_EQ(l.top[2].channel, 0);
}

TEST(ExtremeTokenMeter, WindowsAverageAndAStridedResidualIsReadInPlace) {
  HandBuilt in;
  ExtremeTokenMeter meter(1, 1, 0.3, false);
  // A second window whose first row sends everything to key 0 as well, so alpha_0 stays 0.75 ... with
  // the same numbers twice every mean is unchanged, while the windows count doubles.
  meter.on_attention(in.view());
  meter.on_attention(in.view());
  // The residual as a [1, 3, 2] view with channel stride 2 into a [1, 3, 4] buffer (TransformerLens order
  // over other storage): only every second float is read.
  std::vector<float> wide = {10, -99, 0, -99, 1, -99, -1, -99, 0.5f, -99, 2, -99};
  const Tensor strided(wide.data(), nullptr, Shape({1, 3, 2}), Strides({12, 4, 2}));
  meter.on_activation("blocks.0.resid_post", strided);
  const ExtremeTokenStats s = meter.finish();
  EXPECT_EQ(s.windows, 2);
  EXPECT_DOUBLE_EQ(s.heads[0].alpha[0], 0.75);
  EXPECT_DOUBLE_EQ(s.layers[0].max_abs, 10.0);
  EXPECT_DOUBLE_EQ(s.layers[0].median_abs, 1.0);
}

// NaN weights make every input NaN: each number is NaN (null in JSON), never the 0 a comparison with NaN
// leaves in a sum, nor the -1 a running maximum starts from.
TEST(ExtremeTokenMeter, NonFiniteInputsGiveUndefinedNumbers) {
  HandBuilt in;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::vector<float>* v : {&in.weights, &in.queries, &in.keys, &in.values, &in.slot, &in.residual})
    std::fill(v->begin(), v->end(), nan);
  ExtremeTokenMeter meter(1, 1, 0.3, /*key_bias_slot=*/true);
  meter.on_attention(in.view());
  meter.on_activation("blocks.0.resid_post", in.resid());
  const ExtremeTokenStats s = meter.finish();
  const HeadExtremes& h = s.heads[0];
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(std::isnan(h.alpha[k])) << "alpha_" << k << " " << h.alpha[k];
    EXPECT_TRUE(std::isnan(s.sink_rate[k])) << "Sink_" << k + 1 << " " << s.sink_rate[k];
  }
  EXPECT_EQ(h.alpha[3], 0.0);  // no key 3 at T = 3: nothing non-finite entered it
  EXPECT_TRUE(std::isnan(h.alpha_slot));
  EXPECT_TRUE(std::isnan(s.sink_rate_slot));
  EXPECT_TRUE(std::isnan(h.value_drain)) << h.value_drain;
  EXPECT_TRUE(std::isnan(h.key_norm_ratio)) << h.key_norm_ratio;
  EXPECT_TRUE(std::isnan(h.key_cos_first)) << h.key_cos_first;
  EXPECT_TRUE(std::isnan(h.key_cos_others)) << h.key_cos_others;
  const LayerExtremes& l = s.layers[0];
  EXPECT_TRUE(std::isnan(l.median_abs)) << l.median_abs;
  EXPECT_TRUE(std::isnan(l.max_abs)) << l.max_abs;
  EXPECT_TRUE(std::isnan(l.massive_ratio));
  EXPECT_TRUE(std::isnan(l.residual_peak));
  ASSERT_EQ(l.top.size(), 3u);
  for (const TopActivation& a : l.top) EXPECT_TRUE(std::isnan(a.mean_abs) && std::isnan(a.ratio));
}

// Each number is NaN when a non-finite value enters it, and only then: a NaN value state leaves alpha and
// the key alignment as they were; one NaN entry of the residual stream is where the maximum points.
TEST(ExtremeTokenMeter, ANonFiniteValueSpoilsOnlyTheNumbersItEnters) {
  HandBuilt in;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  in.values[3] = nan;  // v_1
  in.weights[3] = nan;  // row 1: alpha_0 and alpha_1 average it, alpha_2 does not
  in.residual[3] = std::numeric_limits<float>::infinity();  // h at (1, 1)
  ExtremeTokenMeter meter(1, 1, 0.5, false);
  meter.on_attention(in.view());
  meter.on_activation("blocks.0.resid_post", in.resid());
  const ExtremeTokenStats s = meter.finish();
  const HeadExtremes& h = s.heads[0];
  EXPECT_TRUE(std::isnan(h.alpha[0]));
  EXPECT_TRUE(std::isnan(h.alpha[1]));
  EXPECT_DOUBLE_EQ(h.alpha[2], 0.25);
  EXPECT_TRUE(std::isnan(s.sink_rate[0]));
  EXPECT_EQ(s.sink_rate[2], 0.0);
  EXPECT_TRUE(std::isnan(h.value_drain));
  EXPECT_DOUBLE_EQ(h.key_norm_ratio, 5.0 / 1.5);
  EXPECT_DOUBLE_EQ(h.key_cos_first, 0.7);
  const LayerExtremes& l = s.layers[0];
  EXPECT_TRUE(std::isnan(l.max_abs));
  EXPECT_TRUE(std::isnan(l.median_abs));
  EXPECT_EQ(l.max_position, 1);
  EXPECT_EQ(l.max_channel, 1);
  ASSERT_EQ(l.top.size(), 3u);
  EXPECT_EQ(l.top[0].position, 1);  // the infinite entry first, then the largest finite ones
  EXPECT_EQ(l.top[0].channel, 1);
  EXPECT_EQ(l.top[1].position, 0);
  EXPECT_EQ(l.top[1].channel, 0);
  EXPECT_DOUBLE_EQ(l.top[1].mean_abs, 10.0);
  EXPECT_TRUE(std::isnan(l.top[1].ratio));  // a ratio to an undefined median
}

TEST(ExtremeTokenMeter, RefusesAnEmptyMeasurementAndForeignLayers) {
  ExtremeTokenMeter meter(1, 1, 0.3, false);
  EXPECT_THROW(meter.finish(), std::logic_error);
  HandBuilt in;
  AttentionView v = in.view();
  v.layer = 3;
  EXPECT_THROW(meter.on_attention(v), std::logic_error);
  v = in.view();
  v.queries = nullptr;
  EXPECT_THROW(meter.on_attention(v), std::logic_error);
}

}  // namespace
}  // namespace sinklab
