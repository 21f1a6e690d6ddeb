// sink_excess, the graded sink measure: the sink share above uniform attention's, 0 for uniform causal
// attention at any length, 1 for all on BOS, so a head at alpha_0 = 0.30 with T = 16 (uniform: 0.2113)
// no longer reads as a sink by a hair.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "stats/sink_statistics.h"
#include "tests/support/trigger_roles.h"

namespace sinklab {
namespace {

using sinklab::testing::trigger_roles;

// One sample, one head: row i is `row_of(i)` over keys 0..i.
template <typename Row>
HeadSinkStats one_head(int T, Row row_of) {
  std::vector<float> probs(static_cast<size_t>(T) * T, 0.0f);
  for (int i = 0; i < T; ++i) {
    const std::vector<float> row = row_of(i);
    for (int k = 0; k <= i; ++k) probs[static_cast<size_t>(i) * T + k] = row[static_cast<size_t>(k)];
  }
  const std::vector<uint8_t> roles = trigger_roles({T - 1}, T);
  SinkStatisticsAccumulator acc(1, 1, T, 0.3);
  acc.add(0, probs.data(), 1, roles.data());
  return acc.finish().at(0);
}

TEST(SinkExcess, UniformAttentionIsZeroAtEveryLength) {
  for (int T : {3, 16, 64}) {
    const HeadSinkStats h =
        one_head(T, [](int i) { return std::vector<float>(static_cast<size_t>(i) + 1, 1.0f / (i + 1)); });
    EXPECT_NEAR(h.sink_excess, 0.0, 1e-6) << "T = " << T;
    EXPECT_NEAR(h.sink_score, uniform_causal_baseline(T), 1e-6);  // what the eps rule compares with 0.3
  }
}

TEST(SinkExcess, AllOnBosIsOne) {
  const HeadSinkStats h = one_head(16, [](int i) {
    std::vector<float> row(static_cast<size_t>(i) + 1, 0.0f);
    row[0] = 1.0f;
    return row;
  });
  EXPECT_NEAR(h.sink_excess, 1.0, 1e-6);
}

TEST(SinkExcess, HandComputedRows) {
  // T = 3: row 0 sees only BOS (skipped, no room above uniform); row 1: BOS 0.75, u = 1/2, excess
  // (0.75 - 0.5) / 0.5 = 0.5; row 2: BOS 0.2 below u = 1/3, excess (0.2 - 1/3) / (2/3) = -0.2.
  const HeadSinkStats h = one_head(3, [](int i) {
    if (i == 0) return std::vector<float>{1.0f};
    if (i == 1) return std::vector<float>{0.75f, 0.25f};
    return std::vector<float>{0.2f, 0.4f, 0.4f};
  });
  EXPECT_NEAR(h.sink_excess, (0.5 - 0.2) / 2, 1e-6);
}

TEST(SinkExcess, HeadAtTheEpsEdgeIsBarelyAboveUniform) {
  // T = 16, every row i >= 1 puts 0.2533 on BOS and spreads the rest: alpha_0 = (1 + 15 * 0.2533) / 16
  // = 0.3000, exactly eps; far from a sink on the graded scale.
  const float bos = 0.2533f;
  const HeadSinkStats h = one_head(16, [bos](int i) {
    if (i == 0) return std::vector<float>{1.0f};
    std::vector<float> row(static_cast<size_t>(i) + 1, (1.0f - bos) / static_cast<float>(i));
    row[0] = bos;
    return row;
  });
  // Rows 1..15 (row 0 is skipped): mean of (b - 1/(i+1)) / (1 - 1/(i+1)) = (b (i+1) - 1) / i
  // = (b (15 + H_15) - H_15) / 15 = 0.0882 with H_15 = 3.3182.
  double h15 = 0;
  for (int i = 1; i <= 15; ++i) h15 += 1.0 / i;
  EXPECT_NEAR(h.sink_score, 0.3000, 1e-4);
  EXPECT_NEAR(h.sink_excess, (bos * (15 + h15) - h15) / 15, 1e-5);
  EXPECT_LT(h.sink_excess, 0.09);
}

}  // namespace
}  // namespace sinklab
