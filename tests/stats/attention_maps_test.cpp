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

TEST(AttentionMaps, ShortRowsKeepTheWholeMapLongRowsAGridThatStartsAtKeyZero) {
  EXPECT_EQ(attention_map_stride(1), 1);
  EXPECT_EQ(attention_map_stride(kMaxMapSide), 1);
  EXPECT_EQ(attention_map_side(kMaxMapSide), kMaxMapSide);
  EXPECT_EQ(attention_map_stride(kMaxMapSide + 1), 2);
  EXPECT_EQ(attention_map_side(kMaxMapSide + 1), 129);  // 0, 2, ..., 256
  EXPECT_EQ(attention_map_stride(1024), 4);
  EXPECT_EQ(attention_map_side(1024), 256);
  EXPECT_EQ(attention_map_side(2048), 256);
  for (const int T : {257, 600, 1000, 1024, 2047, 2048, 4096}) {
    EXPECT_LE(attention_map_side(T), kMaxMapSide) << T;
    EXPECT_GT((attention_map_side(T) - 1) * attention_map_stride(T), T - 1 - attention_map_stride(T))
        << T;  // reaches the end
  }

  // T = 600: stride 3, side 200. Two inputs whose weight at (i, k) is a known function of i, k and the input.
  const int H = 2, T = 600, S = 200;
  auto weight = [](int input, int h, int i, int k) {
    return k <= i ? 0.001f * static_cast<float>((i + 2 * k + 7 * h + 3 * input) % 97) : 0.0f;
  };
  std::vector<float> batch(static_cast<size_t>(2) * H * T * T);  // batch-major [2, H, T, T]
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < T; ++i)
        for (int k = 0; k < T; ++k) batch[((static_cast<size_t>(b) * H + h) * T + i) * T + k] = weight(b, h, i, k);
  AttentionMapAccumulator acc(1, H, T);
  EXPECT_EQ(acc.stride(), 3);
  EXPECT_EQ(acc.side(), S);
  acc.add(0, batch.data(), 2);
  for (int h = 0; h < H; ++h) {
    const std::vector<float> mean = acc.mean(0, h), sd = acc.stddev(0, h), first = acc.sample0(0, h);
    ASSERT_EQ(mean.size(), static_cast<size_t>(S * S));
    ASSERT_EQ(sd.size(), mean.size());
    ASSERT_EQ(first.size(), mean.size());
    for (const int r : {0, 1, 57, 199})
      for (const int c : {0, 1, 57, 199}) {
        const float a = weight(0, h, 3 * r, 3 * c), b = weight(1, h, 3 * r, 3 * c);
        const size_t e = static_cast<size_t>(r) * S + c;
        EXPECT_FLOAT_EQ(first[e], a) << r << " " << c;
        EXPECT_NEAR(mean[e], 0.5 * (a + b), 1e-7) << r << " " << c;
        EXPECT_NEAR(sd[e], std::fabs(a - b) / std::sqrt(2.0), 1e-7) << r << " " << c;
      }
  }
}

}  // namespace
}  // namespace sinklab
