#include "run_files/attention_map_files.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "run_files/npy.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

TEST(AttentionMaps, WritesOneFileTripleperHead) {
  const auto dir = sinklab::testing::fresh_test_dir();
  AttentionMapAccumulator acc(2, 1, 3);
  std::vector<float> p(9, 0.0f);
  p[0] = 1;
  acc.add(0, p.data(), 1);
  p[0] = 0.5f;
  acc.add(1, p.data(), 1);
  write_attention_maps(dir / "attention", acc);
  EXPECT_EQ(attention_map_path(dir, 1, 0, AttentionMapKind::stddev).filename(), "layer1_head0_std.npy");
  const NpyArray m = read_npy(dir / "attention" / "layer1_head0_mean.npy");
  EXPECT_EQ(m.shape, (std::vector<int64_t>{3, 3}));
  EXPECT_FLOAT_EQ(m.data[0], 0.5f);
  EXPECT_TRUE(std::filesystem::exists(dir / "attention" / "layer0_head0_std.npy"));
  EXPECT_TRUE(std::filesystem::exists(dir / "attention" / "layer0_head0_sample0.npy"));
}

TEST(AttentionMaps, LongRowsWriteTheKeptGrid) {
  const auto dir = sinklab::testing::fresh_test_dir();
  const int T = 1024;  // stride 4: 256 positions per axis
  AttentionMapAccumulator acc(1, 1, T);
  std::vector<float> p(static_cast<size_t>(T) * T, 0.0f);
  for (int i = 0; i < T; ++i) p[static_cast<size_t>(i) * T] = 1.0f;  // every row on key 0
  p[static_cast<size_t>(8) * T] = 0.25f, p[static_cast<size_t>(8) * T + 4] = 0.75f;  // row 8: keys 0 and 4
  acc.add(0, p.data(), 1);
  write_attention_maps(dir / "attention", acc);
  const NpyArray m = read_npy(dir / "attention" / "layer0_head0_mean.npy");
  EXPECT_EQ(m.shape, (std::vector<int64_t>{256, 256}));
  EXPECT_FLOAT_EQ(m.data[0], 1.0f);
  EXPECT_FLOAT_EQ(m.data[2 * 256], 0.25f);  // row 8 = grid row 2
  EXPECT_FLOAT_EQ(m.data[2 * 256 + 1], 0.75f);
  EXPECT_FLOAT_EQ(m.data[255 * 256], 1.0f);  // row 1020
}

}  // namespace
}  // namespace sinklab
