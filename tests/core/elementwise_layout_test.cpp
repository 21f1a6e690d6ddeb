// Layout builders for elementwise kernels: broadcasting rules, dim merging, parallel-safety test.
#include "core/kernels/elementwise_layout.h"
#include "core/kernels/elementwise_loops.h"

#include <gtest/gtest.h>

#include <array>

namespace sinklab::kernels {
namespace {

using Dims = std::array<int64_t, kMaxRank>;

TEST(ElementwiseLayout, BroadcastShapeFollowsNumpyRules) {
  Shape out;
  ASSERT_TRUE(broadcast_shape(Shape{2, 3, 4}, Shape{4}, out));
  EXPECT_EQ(out, (Shape{2, 3, 4}));
  ASSERT_TRUE(broadcast_shape(Shape{2, 1, 4}, Shape{3, 1}, out));
  EXPECT_EQ(out, (Shape{2, 3, 4}));
  ASSERT_TRUE(broadcast_shape(Shape{1}, Shape{5, 1}, out));
  EXPECT_EQ(out, (Shape{5, 1}));
  ASSERT_TRUE(broadcast_shape(Shape{2, 1, 3, 1}, Shape{4, 1, 5}, out));
  EXPECT_EQ(out, (Shape{2, 4, 3, 5}));
  EXPECT_FALSE(broadcast_shape(Shape{2, 3}, Shape{4}, out));
  EXPECT_FALSE(broadcast_shape(Shape{2, 3, 4}, Shape{3, 3}, out));
}

TEST(ElementwiseLayout, ContiguousInputsMergeIntoOneRow) {
  const Shape s{2, 3, 5};
  const ElementwiseLayout l = unary_layout(s, contiguous_strides(s));
  EXPECT_EQ(l.dims, (Dims{1, 1, 1, 30}));
  EXPECT_EQ(l.a[3], 1);
  EXPECT_EQ(l.numel(), 30);
}

TEST(ElementwiseLayout, TrailingBroadcastKeepsARowWithZeroStride) {
  const Shape out{2, 3, 4}, b{4};
  const ElementwiseLayout l = binary_layout(out, out, contiguous_strides(out), b, contiguous_strides(b));
  EXPECT_EQ(l.dims, (Dims{1, 1, 6, 4}));
  EXPECT_EQ(l.a, (Dims{0, 0, 4, 1}));
  EXPECT_EQ(l.b, (Dims{0, 0, 0, 1}));
}

TEST(ElementwiseLayout, MiddleBroadcastIsNotMerged) {
  const Shape out{2, 3, 4}, a{2, 1, 4}, b{3, 1};
  const ElementwiseLayout l = binary_layout(out, a, contiguous_strides(a), b, contiguous_strides(b));
  EXPECT_EQ(l.dims, (Dims{1, 2, 3, 4}));
  EXPECT_EQ(l.a, (Dims{0, 4, 0, 1}));
  EXPECT_EQ(l.b, (Dims{0, 0, 1, 0}));
}

TEST(ElementwiseLayout, TransposedInputKeepsItsStrides) {
  // A [3, 5] view of a contiguous [5, 3] buffer.
  const ElementwiseLayout l = unary_layout(Shape{3, 5}, Strides{1, 3, 0, 0});
  EXPECT_EQ(l.dims, (Dims{1, 1, 3, 5}));
  EXPECT_EQ(l.a, (Dims{0, 0, 1, 3}));
}

TEST(ElementwiseLayout, SizeOneAxesAreDropped) {
  const Shape s{1, 4, 1, 3};
  const ElementwiseLayout l = unary_layout(s, Strides{99, 3, 77, 1});  // strides of size-1 axes are irrelevant
  EXPECT_EQ(l.dims, (Dims{1, 1, 1, 12}));
  EXPECT_EQ(l.a[3], 1);
}

TEST(ElementwiseLayout, ScalarAndEmptyShapes) {
  const ElementwiseLayout one = unary_layout(Shape{1}, Strides{1, 0, 0, 0});
  EXPECT_EQ(one.numel(), 1);
  const ElementwiseLayout empty = unary_layout(Shape{3, 0}, Strides{0, 1, 0, 0});
  EXPECT_EQ(empty.numel(), 0);
  int calls = 0;
  for_each_chunk(empty, true, [&](int64_t, int64_t, int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ElementwiseLayout, WritesDistinctDetectsBroadcastTargets) {
  const Shape out{2, 3, 4}, b{4};
  const ElementwiseLayout l = binary_layout(out, out, contiguous_strides(out), b, contiguous_strides(b));
  EXPECT_TRUE(writes_distinct(l, l.a));
  EXPECT_FALSE(writes_distinct(l, l.b));
}

TEST(ElementwiseLayout, ChunksCoverEveryElementOnce) {
  // A flat row longer than one chunk, visited with the parallel flag on.
  const ElementwiseLayout l = flat_layout(50001);
  std::vector<int> seen(50001, 0);
  for_each_chunk(l, true, [&](int64_t yo, int64_t ao, int64_t bo, int64_t len) {
    EXPECT_EQ(yo, ao);
    EXPECT_EQ(yo, bo);
    for (int64_t k = 0; k < len; ++k) ++seen[static_cast<size_t>(yo + k)];
  });
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "element " << i;
}

}  // namespace
}  // namespace sinklab::kernels
