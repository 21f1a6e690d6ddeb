#pragma once
// The position roles (core/observe/position_roles.h) of trigger-task samples, for tests that feed
// sink statistics by hand: BOS the sink key, the trigger row the active row, every other row a no-op
// row; a trigger outside 1..T-1 leaves the sample without an active row.
#include <cstdint>
#include <vector>

#include "core/observe/position_roles.h"

namespace sinklab::testing {

inline std::vector<uint8_t> trigger_roles(const std::vector<int32_t>& triggers, int seq_len) {
  std::vector<uint8_t> roles(triggers.size() * static_cast<size_t>(seq_len), position_role::kNoOpRow);
  for (size_t b = 0; b < triggers.size(); ++b) {
    uint8_t* row = roles.data() + b * static_cast<size_t>(seq_len);
    row[0] = position_role::kSinkKey;
    if (triggers[b] >= 1 && triggers[b] < seq_len) row[triggers[b]] = position_role::kActiveRow;
  }
  return roles;
}

}  // namespace sinklab::testing
