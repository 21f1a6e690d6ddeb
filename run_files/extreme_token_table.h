#pragma once
// The extreme-token tables printed after the head table by `sinklab train` and `sinklab eval`
// (stats/extreme_tokens.h): Sink_k^eps of each measurement (evaluation inputs; Gu's protocol with and
// without BOS), one line per head (alpha_0..3, the key-bias slot, value drain, key alignment) and one
// per layer (massive activation ratio and where, the top 3, residual-state peak).
#include <string>

#include "stats/extreme_tokens.h"

namespace sinklab {

std::string format_extreme_token_table(const ExtremeTokenReport& report);

}  // namespace sinklab
