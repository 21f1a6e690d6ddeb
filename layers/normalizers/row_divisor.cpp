#include "layers/normalizers/row_divisor.h"

namespace sinklab {

const OptionSpec& row_divisor_option() {
  static const OptionSpec spec = OptionSpec::choice(
      "divisor", {"visible_non_bos", "visible", "seq_len", "none"}, "visible_non_bos",
      "what row i is divided by: visible_non_bos = max(i, 1) (the paper's), visible = i + 1, seq_len = L, none = 1");
  return spec;
}

RowDivisor row_divisor_of(const PluginOptions& options) {
  return static_cast<RowDivisor>(options.choice_index("divisor"));
}

}  // namespace sinklab
