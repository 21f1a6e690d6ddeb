#pragma once
// Counts C++ heap allocations (every global operator new in the test_core binary goes through
// allocation_counter.cpp), so tests can assert that a steady-state training step allocates nothing.
#include <cstddef>

namespace sinklab::testing {

size_t heap_allocation_count();
// The same, without the allocations oneDNN 2.6 makes inside its execute call (its argument map; see
// kernels::inside_onednn_execute() and kernels::inside_bf16_onednn_execute()), which no caller can avoid.
size_t heap_allocation_count_outside_onednn();

}  // namespace sinklab::testing
