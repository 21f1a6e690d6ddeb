// Sigmoid attention on rows computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "layers/normalizers/normalizer_registry.h"

namespace sinklab {
namespace {

std::unique_ptr<Normalizer> make(const std::string& name, std::vector<std::pair<std::string, std::string>> choices) {
  NormalizerConfig c;
  c.name = name;
  for (auto& [key, value] : choices) c.options.set(key, value);
  return normalizer_registry().create(c);
}

// Row 1 (two keys): the default divisor max(i, 1) = 1 leaves sigma(s) as it is.
TEST(SigmoidNormalizer, DefaultsAreSigmaOverTheNonBosCount) {
  const auto norm = make("sigmoid", {});
  const double s[2] = {0.0, std::log(3.0)};
  double a[2];
  norm->forward_row_f64(s, a, RowSpec{1, 2, 8, 0}, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(a[0], 0.5);
  EXPECT_DOUBLE_EQ(a[1], 0.75);
  norm->forward_row_f64(s, a, RowSpec{3, 2, 8, 0}, nullptr, nullptr);  // divided by 3
  EXPECT_DOUBLE_EQ(a[1], 0.25);
  EXPECT_EQ(norm->row_mass_kind(), RowMass::unnormalized);
}

// b = -ln L with L = seq_len (4 here), not the row length: sigma(ln 4 - ln 4) = 1/2, sigma(-ln 4) = 1/5.
TEST(SigmoidNormalizer, NegLogSeqLenBiasUsesTheSequenceLength) {
  const auto norm = make("sigmoid", {{"bias", "neg_log_seq_len"}, {"divisor", "none"}});
  const double s[2] = {std::log(4.0), 0.0};
  double a[2];
  norm->forward_row_f64(s, a, RowSpec{1, 2, 4, 0}, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(a[0], 0.5);
  EXPECT_DOUBLE_EQ(a[1], 0.2);
}

// sigma = [1/2, 3/4] -> [2/5, 3/5]; the rows lie on the simplex and so does the float path.
TEST(SigmoidNormalizer, RowSumNormalizesTheSigmoids) {
  const auto norm = make("sigmoid", {{"divisor", "row_sum"}});
  const double s[2] = {0.0, std::log(3.0)};
  double a[2];
  norm->forward_row_f64(s, a, RowSpec{5, 2, 8, 0}, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(a[0], 0.4);
  EXPECT_DOUBLE_EQ(a[1], 0.6);
  EXPECT_EQ(norm->row_mass_kind(), RowMass::simplex);
  const float sf[2] = {0.0f, std::log(3.0f)};
  float af[2];
  norm->forward_row(sf, af, RowSpec{5, 2, 8, 0}, nullptr, nullptr);
  EXPECT_NEAR(af[0], 0.4f, 1e-6f);
  EXPECT_NEAR(af[1], 0.6f, 1e-6f);
}

}  // namespace
}  // namespace sinklab
