#include "layers/normalizers/row_divisor.h"

namespace sinklab {

const OptionSpec& row_divisor_option() {
  static const OptionSpec spec = OptionSpec::choice(
      "divisor", {"visible_non_bos", "visible", "seq_len", "none", "row_sum"}, "visible_non_bos",
      "what row i is divided by: visible_non_bos = max(i, 1) (the paper's), visible = i + 1, seq_len = L, "
      "none = 1, row_sum = the sum of the row's values over its visible keys (rows on the simplex; a row "
      "summing to 0 stays all 0)");
  return spec;
}

RowDivisor row_divisor_of(const PluginOptions& options) {
  return static_cast<RowDivisor>(options.choice_index("divisor"));
}

}  // namespace sinklab
