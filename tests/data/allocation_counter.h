#pragma once
// Counts calls of the global operator new in the test_data binary, so a test can check that a hot path
// does not allocate. The replacement operators live in allocation_counter.cpp.
#include <cstdint>

namespace sinklab::testing {

uint64_t allocation_count();

}  // namespace sinklab::testing
