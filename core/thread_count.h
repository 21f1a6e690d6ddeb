#pragma once
// The one place that sets how many threads sinklab computes with.

namespace sinklab {

// Sets the thread count of everything sinklab runs in parallel (its OpenMP loops and oneDNN's
// matmuls, which use the same OpenMP runtime) and returns the count before the call, so a caller can
// restore it. Why one function: results are bit-identical only for a given thread count, so every
// place that fixes it goes through here. Without OpenMP everything runs on one thread: a no-op
// returning 1.
int set_thread_count(int threads);

}  // namespace sinklab
