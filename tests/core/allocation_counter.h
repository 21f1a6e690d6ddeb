#pragma once
// Counts C++ heap allocations (every global operator new in the test_core binary goes through
// allocation_counter.cpp), so tests can assert that a steady-state training step allocates nothing.
#include <cstddef>

namespace sinklab::testing {

size_t heap_allocation_count();

}  // namespace sinklab::testing
