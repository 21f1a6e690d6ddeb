#include "stats/attention_maps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace sinklab {
namespace {

TEST(AttentionMaps, MeanStdAndSampleZeroOverBatches) {
  // 1 layer, 2 heads, T = 2; three inputs fed as a batch of 2 then a batch of 1.
  const int H = 2, T = 2;
  auto input = [&](float v) {  // head 0 entry (1,0) = v, head 1 entry (1,0) = 2v; (0,0) = 1
    std::vector<float> p(H * T * T, 0.0f);
    p[0] = 1;
    p[2] = v;
    p[4] = 1;
    p[6] = 2 * v;
    return p;
  };
  std::vector<float> batch = input(0.2f);
  const std::vector<float> second = input(0.4f);
  batch.insert(batch.end(), second.begin(), second.end());
  const std::vector<float> third = input(0.9f);
  AttentionMapAccumulator acc(1, H, T);
  acc.add(0, batch.data(), 2);
  acc.add(0, third.data(), 1);
  EXPECT_EQ(acc.samples(0), 3);

  const double mean = 0.5, sd = std::sqrt(((0.2 - 0.5) * (0.2 - 0.5) + 0.01 + 0.16) / 2);  // n - 1 = 2
  EXPECT_NEAR(acc.mean(0, 0)[2], mean, 1e-6);
  EXPECT_NEAR(acc.stddev(0, 0)[2], sd, 1e-6);
  EXPECT_NEAR(acc.mean(0, 1)[2], 2 * mean, 1e-6);
  EXPECT_NEAR(acc.stddev(0, 1)[2], 2 * sd, 1e-6);
  EXPECT_NEAR(acc.mean(0, 0)[0], 1.0, 1e-7);
  EXPECT_NEAR(acc.stddev(0, 0)[0], 0.0, 1e-7);
  EXPECT_FLOAT_EQ(acc.sample0(0, 1)[2], 0.4f);  // the first input's map, not the mean
  EXPECT_THROW(acc.mean(0, 2), AttentionMapsError);

  acc.reset();
  EXPECT_THROW(acc.mean(0, 0), AttentionMapsError);
  acc.add(0, third.data(), 1);
  EXPECT_EQ(acc.stddev(0, 0)[2], 0.0f);  // one input: no spread
  EXPECT_FLOAT_EQ(acc.sample0(0, 0)[2], 0.9f);
}

}  // namespace
}  // namespace sinklab
