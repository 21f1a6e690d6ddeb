// Per-role next-token metrics on hand-built logits whose losses are known in closed form.
#include "models/role_scores.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/observe/position_roles.h"

namespace sinklab {
namespace {

using namespace position_role;

TEST(RoleScores, SplitsLossAndAccuracyByRowRole) {
  // 5 rows x 3 classes. Row 0: BOS (no row role, scored: ignored). Row 1: active, logits (0, 0, 0),
  // target 2: loss ln 3, arg-max 0 (first largest) -> wrong. Row 2: active, (ln 2, 0, 0) target 0:
  // loss ln 4 - ln 2 = ln 2, right. Row 3: no-op, (0, ln 3, 0) target 1: loss ln 5 - ln 3, right.
  // Row 4: no-op, unscored (-1): ignored.
  const float l2 = std::log(2.0f), l3 = std::log(3.0f);
  const float logits[] = {9, 0, 0, 0, 0, 0, l2, 0, 0, 0, l3, 0, 5, 5, 5};
  const int32_t targets[] = {1, 2, 0, 1, -1};
  const uint8_t roles[] = {kSinkKey, kActiveRow, kActiveRow, kNoOpRow, kNoOpRow};
  RoleScores s;
  s.add(logits, targets, roles, 5, 3);
  EXPECT_EQ(s.active.scored, 2);
  EXPECT_EQ(s.active.correct, 1);
  EXPECT_NEAR(s.active.loss(), (std::log(3.0) + std::log(2.0)) / 2, 1e-6);
  EXPECT_DOUBLE_EQ(s.active.accuracy(), 0.5);
  EXPECT_EQ(s.no_op.scored, 1);
  EXPECT_NEAR(s.no_op.loss(), std::log(5.0) - std::log(3.0), 1e-6);
  EXPECT_DOUBLE_EQ(s.no_op.accuracy(), 1.0);
  // Folding a second chunk accumulates.
  s.add(logits + 3, targets + 1, roles + 1, 1, 3);
  EXPECT_EQ(s.active.scored, 3);
  EXPECT_NEAR(s.active.loss(), (2 * std::log(3.0) + std::log(2.0)) / 3, 1e-6);
}

TEST(RoleScores, NoScoredRowWithTheRoleIsNaN) {
  const float logits[] = {1, 2};
  const int32_t targets[] = {1};
  const uint8_t roles[] = {kNoOpRow};
  RoleScores s;
  s.add(logits, targets, roles, 1, 2);
  EXPECT_TRUE(std::isnan(s.active.loss()));
  EXPECT_TRUE(std::isnan(s.active.accuracy()));
  EXPECT_FALSE(std::isnan(s.no_op.loss()));
}

TEST(RoleScores, LargeLogitsDoNotOverflow) {
  const float logits[] = {1000, 0};
  const int32_t targets[] = {1};
  const uint8_t roles[] = {kActiveRow};
  RoleScores s;
  s.add(logits, targets, roles, 1, 2);
  EXPECT_NEAR(s.active.loss(), 1000.0, 1e-9);
}

}  // namespace
}  // namespace sinklab
