// rng_lanes_uniform (core/rng_lanes.h): runs the copy of core/rng_lanes.isa.cpp compiled for the chosen
// ISA level.
#include "core/rng_lanes.h"

#include "core/cpu/isa_dispatch.h"

namespace sinklab {

SINKLAB_DISPATCHED(void, rng_lanes_uniform,
                   (RngLaneState & state, float lo, float hi, int count, float* const* rows, int lanes),
                   (state, lo, hi, count, rows, lanes))

}  // namespace sinklab
