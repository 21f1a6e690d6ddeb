// ParameterStore: contiguous aligned layout, names, duplicate rejection, lifecycle errors, moments.
#include "core/parameter_store.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace sinklab {
namespace {

TEST(ParameterStore, ContiguousLayoutInDeclarationOrder) {
  ParameterStore ps;
  const auto a = ps.declare("blocks.0.attn.w_q", Shape{3, 5});
  const auto b = ps.declare("blocks.0.attn.w_k", Shape{7});
  const auto c = ps.declare("head.bias", Shape{16});
  ps.finalize();
  const auto& params = ps.parameters();
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params[0].offset, 0u);
  EXPECT_EQ(params[1].offset, 16u);  // 15 floats rounded up to 16
  EXPECT_EQ(params[2].offset, 32u);
  for (const auto& p : params) EXPECT_EQ(p.offset % 16, 0u) << p.name;
  EXPECT_EQ(ps.size(), 48u);
  EXPECT_EQ(ps.tensor(a).data(), ps.values().data());
  EXPECT_EQ(ps.tensor(b).data(), ps.values().data() + 16);
  EXPECT_EQ(ps.tensor(c).grad(), ps.grads().data() + 32);
  EXPECT_EQ(ps.tensor("blocks.0.attn.w_k").shape(), (Shape{7}));
  EXPECT_EQ(ps.id_of("head.bias"), c);
  EXPECT_TRUE(ps.contains("head.bias"));
  EXPECT_FALSE(ps.contains("head.weight"));
  for (float v : ps.values()) EXPECT_EQ(v, 0.0f);
  for (float v : ps.grads()) EXPECT_EQ(v, 0.0f);
}

TEST(ParameterStore, WritesThroughTensorsLandInTheFlatBlocks) {
  ParameterStore ps;
  const auto w = ps.declare("w", Shape{2, 2});
  ps.finalize();
  ps.tensor(w).at({1, 0}) = 3.0f;
  ps.tensor(w).grad_at({0, 1}) = 4.0f;
  EXPECT_EQ(ps.values()[2], 3.0f);
  EXPECT_EQ(ps.grads()[1], 4.0f);
  ps.zero_grads();
  EXPECT_EQ(ps.grads()[1], 0.0f);
  EXPECT_EQ(ps.values()[2], 3.0f);
}

TEST(ParameterStore, NamesAreCheckedAndReported) {
  ParameterStore ps;
  ps.declare("w", Shape{2});
  EXPECT_THROW(ps.declare("w", Shape{3}), std::invalid_argument);
  EXPECT_THROW(ps.declare("", Shape{3}), std::invalid_argument);
  EXPECT_THROW(ps.tensor("w"), std::logic_error);  // before finalize
  ps.finalize();
  EXPECT_THROW(ps.declare("v", Shape{1}), std::logic_error);
  try {
    ps.tensor("missing.param");
    FAIL() << "expected an error";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("missing.param"), std::string::npos) << e.what();
  }
}

TEST(ParameterStore, MomentsAreZeroedAndStable) {
  ParameterStore ps;
  ps.declare("w", Shape{5});
  EXPECT_THROW(ps.moment(0), std::logic_error);
  ps.finalize();
  auto m1 = ps.moment(1);  // creates moments 0 and 1
  EXPECT_EQ(ps.moment_count(), 2);
  EXPECT_EQ(m1.size(), ps.size());
  for (float v : m1) EXPECT_EQ(v, 0.0f);
  m1[3] = 7.0f;
  EXPECT_EQ(ps.moment(1)[3], 7.0f);  // the same block on the next request
  EXPECT_EQ(ps.moment(0)[3], 0.0f);
  EXPECT_NE(ps.moment(0).data(), ps.moment(1).data());
}

}  // namespace
}  // namespace sinklab
