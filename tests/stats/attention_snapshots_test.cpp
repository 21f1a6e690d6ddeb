// Attention snapshots' maps: equal to the attention map accumulator's up to T = 128, pooled as
// documented beyond it (checked cell by cell against the formula on a small case), and the series.
#include "stats/attention_snapshots.h"

#include <gtest/gtest.h>

#include <random>

#include "stats/attention_maps.h"

namespace sinklab {
namespace {

// batch x heads row-stochastic causal [T, T] blocks, batch-major.
std::vector<float> random_attention(int batch, int heads, int T, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.01f, 1.0f);
  std::vector<float> p(static_cast<size_t>(batch) * heads * T * T, 0.0f);
  for (size_t block = 0; block < static_cast<size_t>(batch) * heads; ++block)
    for (int q = 0; q < T; ++q) {
      float* row = p.data() + (block * T + q) * T;
      float sum = 0;
      for (int k = 0; k <= q; ++k) sum += row[k] = u(rng);
      for (int k = 0; k <= q; ++k) row[k] /= sum;
    }
  return p;
}

TEST(SnapshotPositions, EveryPositionUpTo128ThenEdgesAndPooledMiddle) {
  const std::vector<int32_t> short_rows = snapshot_positions(16);
  ASSERT_EQ(short_rows.size(), 16u);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(short_rows[static_cast<size_t>(i)], i);
  EXPECT_EQ(snapshot_positions(128).size(), 128u);
  // T = 200: middle 16 .. 183 (168 positions) in 96 bins starting at 16 + floor(b * 168 / 96).
  const std::vector<int32_t> p = snapshot_positions(200);
  ASSERT_EQ(p.size(), 128u);
  EXPECT_EQ(p[15], 15);
  EXPECT_EQ(p[16], 16);
  EXPECT_EQ(p[17], 17);        // 16 + floor(1.75)
  EXPECT_EQ(p[18], 19);        // 16 + floor(3.5)
  EXPECT_EQ(p[16 + 95], 182);  // 16 + floor(166.25)
  EXPECT_EQ(p[112], 184);      // the last 16 in full
  EXPECT_EQ(p[127], 199);
  EXPECT_THROW(snapshot_positions(0), AttentionSnapshotError);
}

TEST(SnapshotMapAccumulator, UpTo128ItIsTheAttentionMapAccumulatorsMeanAndSample0) {
  const int layers = 2, heads = 3, T = 12, batch = 5;
  SnapshotMapAccumulator snap(layers, heads, T);
  AttentionMapAccumulator maps(layers, heads, T);
  const AttentionBlockLayout layout = AttentionBlockLayout::batch_major(heads, T);
  for (int chunk = 0; chunk < 2; ++chunk)
    for (int l = 0; l < layers; ++l) {
      const std::vector<float> p = random_attention(batch, heads, T, static_cast<unsigned>(10 * chunk + l));
      snap.add(l, p.data(), batch, layout);
      maps.add(l, p.data(), batch);
    }
  const std::vector<float> mean = snap.mean(), example = snap.example();
  ASSERT_EQ(mean.size(), static_cast<size_t>(layers * heads * T * T));
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      const std::vector<float> m = maps.mean(l, h), x = maps.sample0(l, h);
      for (size_t e = 0; e < m.size(); ++e) {
        const size_t at = (static_cast<size_t>(l) * heads + h) * T * T + e;
        EXPECT_NEAR(mean[at], m[e], 1e-6) << l << " " << h << " " << e;
        EXPECT_EQ(example[at], x[e]) << l << " " << h << " " << e;
      }
    }
}

TEST(SnapshotMapAccumulator, LongRowsPoolTheMiddleAsDocumented) {
  // T = 130: middle 16 .. 113 (98 positions) in 96 bins: 16 + floor(b * 98 / 96), so bin 47 holds
  // queries / keys 63 and 64, bin 95 holds 112 and 113, every other bin one position.
  const int T = 130, batch = 2;
  SnapshotMapAccumulator snap(1, 1, T);
  const std::vector<int32_t>& pos = snap.positions();
  ASSERT_EQ(pos[16 + 47], 63);
  ASSERT_EQ(pos[16 + 48], 65);
  ASSERT_EQ(pos[16 + 95], 112);
  ASSERT_EQ(pos[112], 114);
  const std::vector<float> p = random_attention(batch, 1, T, 7);
  snap.add(0, p.data(), batch, AttentionBlockLayout::batch_major(1, T));
  const auto w = [&](int b, int q, int k) { return static_cast<double>(p[(static_cast<size_t>(b) * T + q) * T + k]); };
  const std::vector<float> mean = snap.mean(), example = snap.example();
  const size_t side = 128;
  const auto cell = [&](const std::vector<float>& m, size_t r, size_t c) {
    return static_cast<double>(m[r * side + c]);
  };
  const size_t r47 = 16 + 47, r95 = 16 + 95, r70 = 16 + 70;  // bin 70 is position 16 + floor(71.46) = 87 alone
  ASSERT_EQ(pos[r70], 87);
  ASSERT_EQ(pos[r70 + 1], 88);
  // A full cell: the exact weight (mean over the inputs).
  EXPECT_NEAR(cell(mean, 5, 0), (w(0, 5, 0) + w(1, 5, 0)) / 2, 1e-6);
  EXPECT_NEAR(cell(mean, 127, 120), (w(0, 129, 122) + w(1, 129, 122)) / 2, 1e-6);  // stored 120 = 114 + 8
  // A pooled row and a pooled column: mean over the row bin's queries of the column bin's total weight.
  const auto pooled = [&](int b) { return (w(b, 112, 63) + w(b, 112, 64) + w(b, 113, 63) + w(b, 113, 64)) / 2; };
  EXPECT_NEAR(cell(mean, r95, r47), (pooled(0) + pooled(1)) / 2, 1e-6);
  EXPECT_NEAR(cell(example, r95, r47), pooled(0), 1e-6);
  // A pooled row against a full column (BOS), and a one-position bin against a pooled column.
  EXPECT_NEAR(cell(example, r47, 0), (w(0, 63, 0) + w(0, 64, 0)) / 2, 1e-6);
  EXPECT_NEAR(cell(example, r70, r47), w(0, 87, 63) + w(0, 87, 64), 1e-6);
  // Rows keep their mass: every stored row of a softmax map sums to 1.
  for (size_t r = 0; r < side; ++r) {
    double sum = 0;
    for (size_t c = 0; c < side; ++c) sum += cell(mean, r, c);
    EXPECT_NEAR(sum, 1.0, 1e-5) << r;
  }
}

TEST(SnapshotMapAccumulator, NoSamplesIsAnError) {
  SnapshotMapAccumulator snap(2, 1, 4);
  const std::vector<float> p = random_attention(1, 1, 4, 1);
  snap.add(0, p.data(), 1, AttentionBlockLayout::batch_major(1, 4));
  EXPECT_THROW(snap.mean(), AttentionSnapshotError);  // layer 1 never seen
  EXPECT_THROW(SnapshotMapAccumulator(0, 1, 4), AttentionSnapshotError);
  EXPECT_THROW(snap.add(2, p.data(), 1, AttentionBlockLayout::batch_major(1, 4)), AttentionSnapshotError);
}

TEST(AttentionSnapshots, AppendsInStepOrderAndKeepsThoseBeforeAStep) {
  SnapshotMapAccumulator snap(1, 1, 4);
  AttentionSnapshots s;
  s.layers = s.heads = 1;
  s.seq_len = 4;
  s.positions = snap.positions();
  for (int64_t step : {0, 10, 20}) {
    snap.reset();
    const std::vector<float> p = random_attention(1, 1, 4, static_cast<unsigned>(step));
    snap.add(0, p.data(), 1, AttentionBlockLayout::batch_major(1, 4));
    s.append(step, snap);
  }
  EXPECT_EQ(s.steps, (std::vector<int64_t>{0, 10, 20}));
  EXPECT_EQ(s.mean.size(), 3u * 16);
  EXPECT_THROW(s.append(20, snap), AttentionSnapshotError);
  const std::vector<float> first_two(s.mean.begin(), s.mean.begin() + 32);
  s.keep_before(11);
  EXPECT_EQ(s.steps, (std::vector<int64_t>{0, 10}));
  EXPECT_EQ(s.mean, first_two);
  EXPECT_EQ(s.example.size(), 32u);
  SnapshotMapAccumulator other(1, 2, 4);
  EXPECT_THROW(s.append(30, other), AttentionSnapshotError);
}

// The closed form a resumed run uses equals the schedule a straight run follows: take at multiples of
// the interval, and when `limit` are kept drop those off twice the interval and double it.
TEST(SnapshotInterval, EqualsTheOnlineThinning) {
  for (const int64_t every : {1, 3, 16})
    for (const int64_t limit : {0, 2, 3, 4, 7, 100}) {
      int64_t interval = every;
      std::vector<int64_t> kept;
      for (int64_t step = 0; step < 3000; ++step) {
        ASSERT_EQ(snapshot_interval(every, limit, step), interval) << every << " " << limit << " " << step;
        if (step % interval != 0) continue;
        kept.push_back(step);
        if (limit > 0 && static_cast<int64_t>(kept.size()) >= limit) {
          interval *= 2;
          std::erase_if(kept, [&](int64_t s) { return s % interval != 0; });
        }
        // The kept steps are the multiples of the interval so far.
        ASSERT_EQ(static_cast<int64_t>(kept.size()), step / interval + 1) << every << " " << limit << " " << step;
      }
    }
}

TEST(SnapshotInterval, KeepMultiplesOfMovesTheMaps) {
  AttentionSnapshots s;
  s.layers = 1;
  s.heads = 1;
  s.seq_len = 2;
  s.positions = snapshot_positions(2);
  s.steps = {0, 2, 4, 6};
  for (int i = 0; i < 16; ++i) {
    s.mean.push_back(static_cast<float>(i));
    s.example.push_back(static_cast<float>(-i));
  }
  s.keep_multiples_of(4);
  EXPECT_EQ(s.steps, (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(s.mean, (std::vector<float>{0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(s.example, (std::vector<float>{0, -1, -2, -3, -8, -9, -10, -11}));
}

}  // namespace
}  // namespace sinklab
