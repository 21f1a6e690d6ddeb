#pragma once
// The row divisor c_i shared by the relu family (relu, relu2): row i's weights are divided by c_i.
// One option declaration, so every normalizer that takes it spells and documents it the same way.
#include <algorithm>
#include <cstdint>

#include "core/options/option_spec.h"
#include "layers/normalizers/normalizer.h"

namespace sinklab {

// visible_non_bos = max(i, 1) (the paper's: the non-BOS keys row i sees), visible = i + 1 (Guo et al.),
// seq_len = T (Wortsman et al.), none = 1.
enum class RowDivisor : uint8_t { visible_non_bos, visible, seq_len, none };

// The `divisor` option; choices in enum order.
const OptionSpec& row_divisor_option();
RowDivisor row_divisor_of(const PluginOptions& options);

// From the row's position (RowSpec::query), not from the length of the row handed over.
template <class Real>
Real row_divisor(RowDivisor divisor, const RowSpec& row) {
  switch (divisor) {
    case RowDivisor::visible_non_bos: return static_cast<Real>(std::max(row.query, 1));
    case RowDivisor::visible: return static_cast<Real>(row.query + 1);
    case RowDivisor::seq_len: return static_cast<Real>(row.seq_len);
    case RowDivisor::none: return Real(1);
  }
  return Real(1);
}

}  // namespace sinklab
