// sum_forward / sum_backward against their naive twins for every position of the reduced axis.
#include "core/kernels/reduce.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/core/test_arrays.h"

namespace sinklab::kernels {
namespace {

using sinklab::testing::all_close;
using sinklab::testing::random_floats;

struct Dims3 {
  int64_t outer, n, inner;
};

TEST(ReduceKernel, SumMatchesReference) {
  const Dims3 cases[] = {{1, 1001, 1}, {7, 13, 1}, {1, 13, 7}, {5, 9, 11}, {3, 1, 4},
                         {129, 301, 1}, {301, 129, 3}, {1, 40000, 1}, {2, 3, 20000}};
  for (const Dims3& c : cases) {
    SCOPED_TRACE(::testing::Message() << "[" << c.outer << ", " << c.n << ", " << c.inner << "]");
    const auto nx = static_cast<size_t>(c.outer * c.n * c.inner), ny = static_cast<size_t>(c.outer * c.inner);
    const std::vector<float> x = random_floats(nx, 31), dy = random_floats(ny, 32);
    for (float scale : {1.0f, 1.0f / static_cast<float>(c.n)}) {
      std::vector<float> y(ny), y_ref(ny);
      sum_forward(x.data(), y.data(), c.outer, c.n, c.inner, scale);
      sum_forward_reference(x.data(), y_ref.data(), c.outer, c.n, c.inner, scale);
      // Float accumulation over up to 301 terms (the inner > 1 path) against double.
      EXPECT_TRUE(all_close(y, y_ref, 1e-5, 1e-5));
      std::vector<float> dx = random_floats(nx, 33), dx_ref = dx;
      sum_backward(dy.data(), dx.data(), c.outer, c.n, c.inner, scale);
      sum_backward_reference(dy.data(), dx_ref.data(), c.outer, c.n, c.inner, scale);
      EXPECT_TRUE(all_close(dx, dx_ref));
    }
  }
}

TEST(ReduceKernel, HandValues) {
  // x [2, 3]: sums over axis 0 (outer 1, n 2, inner 3) and axis 1 (outer 2, n 3, inner 1).
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<float> cols(3), rows(2);
  sum_forward(x.data(), cols.data(), 1, 2, 3, 1.0f);
  sum_forward(x.data(), rows.data(), 2, 3, 1, 1.0f / 3.0f);
  EXPECT_EQ(cols, (std::vector<float>{5, 7, 9}));
  EXPECT_FLOAT_EQ(rows[0], 2.0f);
  EXPECT_FLOAT_EQ(rows[1], 5.0f);
  std::vector<float> dx(6, 1.0f);
  const std::vector<float> dy = {10, 20};
  sum_backward(dy.data(), dx.data(), 2, 3, 1, 0.5f);
  EXPECT_EQ(dx, (std::vector<float>{6, 6, 6, 11, 11, 11}));
}

}  // namespace
}  // namespace sinklab::kernels
