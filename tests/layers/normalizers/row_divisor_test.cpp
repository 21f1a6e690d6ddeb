// The relu family's row_sum divisor (layers/normalizers/row_divisor.h) on rows computed by hand.
#include <gtest/gtest.h>

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

// relu row_sum: [1, 3, -1] -> [1/4, 3/4, 0]; an all-negative row is all 0 with exactly zero gradient.
TEST(ReluRowSum, NormalizesAndLeavesZeroRowsAtZero) {
  for (const char* name : {"relu", "relu2"}) {
    SCOPED_TRACE(name);
    const auto norm = make(name, {{"divisor", "row_sum"}});
    const bool squared = std::string(name) == "relu2";
    const double s[3] = {1.0, 3.0, -1.0};
    double a[3];
    norm->forward_row_f64(s, a, RowSpec{2, 3, 4, 0}, nullptr, nullptr);
    EXPECT_DOUBLE_EQ(a[0], squared ? 0.1 : 0.25);
    EXPECT_DOUBLE_EQ(a[1], squared ? 0.9 : 0.75);
    EXPECT_EQ(a[2], 0.0);

    const float negative[3] = {-1.0f, -0.5f, -2.0f}, dprobs[3] = {1.0f, -2.0f, 3.0f};
    float probs[3], dscores[3] = {0.5f, 0.5f, 0.5f};
    norm->forward_row(negative, probs, RowSpec{2, 3, 4, 0}, nullptr, nullptr);
    norm->backward_row(negative, probs, dprobs, dscores, RowSpec{2, 3, 4, 0}, nullptr, nullptr, nullptr);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(probs[k], 0.0f) << k;
      EXPECT_EQ(dscores[k], 0.5f) << k;
    }
  }
}

}  // namespace
}  // namespace sinklab
