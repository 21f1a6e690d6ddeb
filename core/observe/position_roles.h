#pragma once
// What the sink statistics need to know about each position of a sample: one byte of flags per
// position, written by the task next to its inputs (data/task.h) and read by the statistics
// (stats/sink_statistics.h), so a statistic is defined by roles, never by one task's layout.
//   sink key:   a key that attention may park weight on (BOS);
//   no-op row:  a query row whose head has nothing to do (a non-trigger row of the trigger task);
//   active row: a query row whose head does the task's work (the trigger row).
// A row with neither row flag (BOS, any row of a plain language model) still counts in the
// statistics over all rows (row mass, Gu's sink score).
#include <cstdint>

namespace sinklab::position_role {

inline constexpr uint8_t kSinkKey = 1;
inline constexpr uint8_t kNoOpRow = 2;
inline constexpr uint8_t kActiveRow = 4;

}  // namespace sinklab::position_role
