// Embedding gather / scatter-add against naive twins, with repeated ids.
#include "core/kernels/embedding.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/core/test_arrays.h"

namespace sinklab::kernels {
namespace {

using sinklab::testing::all_close;
using sinklab::testing::random_floats;

TEST(EmbeddingKernel, MatchesReference) {
  const std::pair<int64_t, int64_t> shapes[] = {{1, 1}, {17, 5}, {300, 129}};  // n ids, dim
  const int64_t vocab = 23;
  for (const auto& [n, dim] : shapes) {
    SCOPED_TRACE(::testing::Message() << n << " ids, dim " << dim);
    std::vector<int32_t> ids(static_cast<size_t>(n));
    Rng rng(71);
    for (auto& id : ids) id = static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab)));
    const std::vector<float> table = random_floats(static_cast<size_t>(vocab * dim), 72);
    const std::vector<float> dy = random_floats(static_cast<size_t>(n * dim), 73);
    std::vector<float> y(static_cast<size_t>(n * dim)), y_ref(y.size());
    embedding_forward(table.data(), ids.data(), y.data(), n, dim);
    embedding_forward_reference(table.data(), ids.data(), y_ref.data(), n, dim);
    EXPECT_TRUE(all_close(y, y_ref, 0.0, 0.0));
    std::vector<float> dt = random_floats(table.size(), 74), dt_ref = dt;
    embedding_backward(ids.data(), dy.data(), dt.data(), n, dim);
    embedding_backward_reference(ids.data(), dy.data(), dt_ref.data(), n, dim);
    EXPECT_TRUE(all_close(dt, dt_ref));
  }
}

TEST(EmbeddingKernel, RepeatedIdsAccumulate) {
  const std::vector<float> table = {0, 0, 1, 1, 2, 2};  // [3, 2]
  const std::vector<int32_t> ids = {2, 0, 2};
  std::vector<float> y(6);
  embedding_forward(table.data(), ids.data(), y.data(), 3, 2);
  EXPECT_EQ(y, (std::vector<float>{2, 2, 0, 0, 2, 2}));
  const std::vector<float> dy = {1, 2, 3, 4, 5, 6};
  std::vector<float> dt(6, 0.0f);
  embedding_backward(ids.data(), dy.data(), dt.data(), 3, 2);
  EXPECT_EQ(dt, (std::vector<float>{3, 4, 0, 0, 6, 8}));
}

TEST(EmbeddingKernel, FirstInvalidId) {
  const std::vector<int32_t> ids = {0, 4, 5, -1};
  EXPECT_EQ(first_invalid_id(ids.data(), 2, 5), -1);
  EXPECT_EQ(first_invalid_id(ids.data(), 4, 5), 2);
  EXPECT_EQ(first_invalid_id(ids.data() + 3, 1, 5), 0);
}

}  // namespace
}  // namespace sinklab::kernels
