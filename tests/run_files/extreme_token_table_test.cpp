// The extreme-token table (run_files/extreme_token_table.h): a ratio over a median |h| of 0 is "n/a" with
// its footnote, while the numbers of a layer that is not finite (NaN weights) are "-" like every other
// non-finite number, without a footnote blaming a zero median.
#include "run_files/extreme_token_table.h"

#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace sinklab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kZeroMedianNote = "(n/a: the median |h| is 0";

ExtremeTokenReport one_layer(double median_abs, double max_abs) {
  ExtremeTokenReport r;
  r.eval.seq_len = 4;
  r.eval.windows = 1;
  HeadExtremes head;
  head.alpha = {kNaN, kNaN, kNaN, 0.0};
  r.eval.heads.push_back(head);
  LayerExtremes layer;
  layer.median_abs = median_abs;
  layer.max_abs = max_abs;
  layer.massive_ratio = kNaN;  // undefined either way: over a zero median, or of NaN numbers
  layer.residual_peak = kNaN;
  layer.top.push_back({0, 0, max_abs, kNaN});
  r.eval.layers.push_back(layer);
  return r;
}

std::string layer_line(const std::string& table) {
  const size_t header = table.find("layer  massive");
  const size_t begin = table.find('\n', header) + 1;
  return table.substr(begin, table.find('\n', begin) - begin);
}

TEST(ExtremeTokenTable, AZeroMedianIsNotAvailableWithItsFootnote) {
  const std::string table = format_extreme_token_table(one_layer(0.0, 3.0));
  EXPECT_NE(layer_line(table).find("n/a"), std::string::npos) << table;
  EXPECT_NE(table.find(kZeroMedianNote), std::string::npos) << table;
}

TEST(ExtremeTokenTable, NonFiniteNumbersAreDashesWithoutTheZeroMedianFootnote) {
  const std::string table = format_extreme_token_table(one_layer(kNaN, kNaN));
  const std::string line = layer_line(table);
  EXPECT_EQ(line.find("n/a"), std::string::npos) << table;
  EXPECT_NE(line.find(" - "), std::string::npos) << table;
  EXPECT_EQ(table.find(kZeroMedianNote), std::string::npos) << table;
  EXPECT_EQ(table.find("nan"), std::string::npos) << table;
}

}  // namespace
}  // namespace sinklab
