// The shared argument checks of the op wrappers: messages name the op, the input and the shape.
#include "core/ops/op_checks.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace sinklab {
namespace {

std::string message_of(void (*f)()) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(OpChecks, MessagesNameOpInputAndShape) {
  static std::vector<float> x(6);
  const std::string undefined = message_of([] { op_checks::require_defined("my_op", "weight", Tensor()); });
  EXPECT_EQ(undefined, "my_op: input 'weight' is undefined");
  const std::string strided = message_of(
      [] { op_checks::require_contiguous("my_op", "x", Tensor(x.data(), nullptr, Shape{2, 3}).transpose(0, 1)); });
  EXPECT_NE(strided.find("my_op: input 'x' [3, 2] is a non-contiguous view"), std::string::npos) << strided;
  const std::string vec = message_of(
      [] { op_checks::require_vector_or_undefined("my_op", "bias", Tensor(x.data(), nullptr, Shape{6}), 4); });
  EXPECT_EQ(vec, "my_op: 'bias' must be [4], got [6]");
  EXPECT_NO_THROW(op_checks::require_vector_or_undefined("my_op", "bias", Tensor(), 4));
  const std::string shapes = message_of([] {
    op_checks::require_same_shape("my_op", Tensor(x.data(), nullptr, Shape{2, 3}), Tensor(x.data(), nullptr, Shape{6}));
  });
  EXPECT_EQ(shapes, "my_op: shapes differ: [2, 3] vs [6]");
}

TEST(OpChecks, IndexStringAndValueAt) {
  EXPECT_EQ(op_checks::index_str(Shape{2, 3, 4}, 23), "[1, 2, 3]");
  EXPECT_EQ(op_checks::index_str(Shape{5}, 3), "[3]");
  std::vector<float> x = {0, 1, 2, 3, 4, 5};
  const Tensor t = Tensor(x.data(), nullptr, Shape{2, 3}).transpose(0, 1);  // [[0, 3], [1, 4], [2, 5]]
  EXPECT_EQ(op_checks::value_at(t, 1), 3.0f);
  EXPECT_EQ(op_checks::value_at(t, 4), 2.0f);
}

}  // namespace
}  // namespace sinklab
