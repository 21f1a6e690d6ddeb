// Tensor views (reshape, transpose, permute, slice) share storage and gradient storage; offsets;
// contiguity; errors. Also Shape basics.
#include "core/tensor.h"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/core/test_arrays.h"

namespace sinklab {
namespace {

struct Storage {
  std::vector<float> data, grad;
  explicit Storage(size_t n) : data(n), grad(n, 0.0f) { std::iota(data.begin(), data.end(), 0.0f); }
};

TEST(Shape, BasicsAndErrors) {
  const Shape s{2, 3, 4};
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s.numel(), 24);
  EXPECT_EQ(s.str(), "[2, 3, 4]");
  EXPECT_EQ(Shape().numel(), 1);  // rank 0: one element
  EXPECT_EQ((Shape{3, 0}).numel(), 0);
  EXPECT_FALSE(s == (Shape{2, 3}));
  EXPECT_EQ(contiguous_strides(s), (Strides{12, 4, 1, 0}));
  EXPECT_THROW((Shape{1, 2, 3, 4, 5}), std::invalid_argument);
  EXPECT_THROW((Shape{2, -1}), std::invalid_argument);
  EXPECT_EQ(normalize_axis(-1, 3, "t"), 2);
  EXPECT_THROW(normalize_axis(3, 3, "t"), std::invalid_argument);
  EXPECT_THROW(normalize_axis(-4, 3, "t"), std::invalid_argument);
}

TEST(Tensor, ContiguousBasics) {
  Storage st(24);
  const Tensor t(st.data.data(), st.grad.data(), Shape{2, 3, 4});
  EXPECT_TRUE(t.defined());
  EXPECT_TRUE(t.requires_grad());
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.dim(-1), 4);
  EXPECT_EQ(t.stride(0), 12);
  EXPECT_EQ(t.offset_of({1, 2, 3}), 23);
  EXPECT_EQ(t.at({1, 0, 2}), 14.0f);
  EXPECT_FALSE(Tensor().defined());
  EXPECT_FALSE(t.detach().requires_grad());
  EXPECT_EQ(t.detach().data(), t.data());
}

TEST(Tensor, ReshapeSharesStorage) {
  Storage st(12);
  const Tensor t(st.data.data(), st.grad.data(), Shape{3, 4});
  const Tensor r = t.reshape(Shape{2, 6});
  EXPECT_EQ(r.data(), t.data());
  EXPECT_EQ(r.grad(), t.grad());
  r.at({1, 0}) = -1.0f;
  EXPECT_EQ(t.at({1, 2}), -1.0f);  // flat index 6
  EXPECT_THROW(t.reshape(Shape{5, 2}), std::invalid_argument);
}

TEST(Tensor, TransposeAndPermuteAreViews) {
  Storage st(24);
  const Tensor t(st.data.data(), st.grad.data(), Shape{2, 3, 4});
  const Tensor tr = t.transpose(0, 2);
  EXPECT_EQ(tr.shape(), (Shape{4, 3, 2}));
  EXPECT_FALSE(tr.is_contiguous());
  EXPECT_EQ(tr.at({3, 1, 0}), t.at({0, 1, 3}));
  tr.grad_at({2, 2, 1}) = 5.0f;
  EXPECT_EQ(t.grad_at({1, 2, 2}), 5.0f);
  const Tensor p = t.permute({1, 2, 0});
  EXPECT_EQ(p.shape(), (Shape{3, 4, 2}));
  EXPECT_EQ(p.stride(0), 4);
  EXPECT_EQ(p.stride(2), 12);
  EXPECT_EQ(p.at({2, 1, 1}), t.at({1, 2, 1}));
  EXPECT_THROW(t.reshape(Shape{24}).transpose(0, 1), std::invalid_argument);  // rank 1 has no axis 1
  EXPECT_THROW(tr.reshape(Shape{24}), std::invalid_argument);                 // not contiguous
  EXPECT_THROW(t.permute({0, 0, 1}), std::invalid_argument);
  EXPECT_THROW(t.permute({0, 1}), std::invalid_argument);
}

TEST(Tensor, SliceOffsetsDataAndGrad) {
  Storage st(12);
  const Tensor t(st.data.data(), st.grad.data(), Shape{3, 4});
  const Tensor rows = t.slice(0, 1, 2);  // rows 1..2: still contiguous
  EXPECT_EQ(rows.shape(), (Shape{2, 4}));
  EXPECT_EQ(rows.data(), t.data() + 4);
  EXPECT_EQ(rows.grad(), t.grad() + 4);
  EXPECT_TRUE(rows.is_contiguous());
  const Tensor cols = t.slice(1, 1, 2);  // columns 1..2: strided
  EXPECT_EQ(cols.shape(), (Shape{3, 2}));
  EXPECT_FALSE(cols.is_contiguous());
  EXPECT_EQ(cols.at({2, 1}), 10.0f);
  EXPECT_EQ(testing::values(cols), (std::vector<float>{1, 2, 5, 6, 9, 10}));
  const Tensor no_grad(st.data.data(), nullptr, Shape{3, 4});
  EXPECT_EQ(no_grad.slice(0, 1, 1).grad(), nullptr);
  EXPECT_THROW(t.slice(1, 3, 2), std::invalid_argument);
  EXPECT_THROW(t.slice(0, -1, 1), std::invalid_argument);
  EXPECT_NO_THROW(t.slice(1, 4, 0));  // an empty slice at the end is valid
}

TEST(Tensor, ElementAccessErrors) {
  Storage st(6);
  const Tensor t(st.data.data(), nullptr, Shape{2, 3});
  EXPECT_THROW(t.at({2, 0}), std::out_of_range);
  EXPECT_THROW(t.at({0}), std::invalid_argument);
  EXPECT_THROW(t.grad_at({0, 0}), std::logic_error);
  try {
    t.dim(5);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("axis 5"), std::string::npos) << e.what();
  }
}

TEST(Tensor, SizeOneDimsDoNotBreakContiguity) {
  Storage st(4);
  const Tensor t(st.data.data(), nullptr, Shape{4, 1}, Strides{1, 99, 0, 0});
  EXPECT_TRUE(t.is_contiguous());
}

}  // namespace
}  // namespace sinklab
