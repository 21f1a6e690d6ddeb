#pragma once
// Batched, strided float32 matmul on raw pointers through oneDNN's matmul primitive, behind a cache of
// ready primitives keyed by the full layout (dims, strides, accumulate, alpha).
//
// Shapes (every operand viewed as rank 4, [batch0, batch1, rows, cols], strides in elements):
//   A [b0|1, b1|1, M, K]  x  B [b0|1, b1|1, K, N]  ->  C [b0, b1, M, N]
// A batch dim of size 1 (or read with stride 0) broadcasts over C's batch dim: weights shared over the
// batch. 2-D and 3-D callers pad with leading 1s. Transposes are strides, never copies:
// `transposed_view(op)` reads the same memory as its transpose.
//
// Rules for callers:
// - Not from inside an OpenMP parallel region (oneDNN threads itself; nested calls would serialize on
//   the cache lock and run single-threaded). Checked at run time: the process aborts with a message.
// - C must not overlap A or B, and C's own elements must not overlap (checked: invalid_argument).
// - Calls from several std::threads are safe but serialized (one engine, one stream, one lock).
// - The cache never evicts: training uses a handful of static shapes. clear_matmul_cache() drops all.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sinklab::kernels {

// One strided operand, viewed as rank 4: [batch0, batch1, rows, cols], strides in elements.
struct MatmulOperand {
  std::array<int64_t, 4> dims;
  std::array<int64_t, 4> strides;
};

// Dense row-major [b0, b1, rows, cols].
MatmulOperand dense_operand(int64_t batch0, int64_t batch1, int64_t rows, int64_t cols);
inline MatmulOperand dense_operand(int64_t rows, int64_t cols) { return dense_operand(1, 1, rows, cols); }
// The same memory read as its transpose: swaps rows and cols (dims and strides), no copy.
MatmulOperand transposed_view(const MatmulOperand& op);

struct MatmulShape {
  int64_t batch0, batch1, m, n, k;
};
// Checks that A x B -> C is consistent (inner dims, batch dims equal or broadcast, no negative
// strides, no overlapping C elements) and returns the problem size. Throws std::invalid_argument
// naming the offending shapes.
MatmulShape check_matmul_layouts(const MatmulOperand& a, const MatmulOperand& b, const MatmulOperand& c);

// C (+)= alpha * A x B for every batch index. accumulate = true adds into C (gradient accumulation,
// oneDNN's sum post-op); accumulate = false ignores C's old contents (they may be garbage or NaN).
void matmul(const float* a, const MatmulOperand& a_layout, const float* b, const MatmulOperand& b_layout, float* c,
            const MatmulOperand& c_layout, bool accumulate, float alpha = 1.0f);

// primitives: oneDNN primitives held; hits/misses: cache lookups since the last clear (every miss
// makes one entry: a primitive, or the decision to use the loop kernel).
struct MatmulCacheStats {
  size_t primitives;
  size_t hits;
  size_t misses;
};
MatmulCacheStats matmul_cache_stats();

// True while this thread is inside oneDNN's execute call. oneDNN 2.6 builds its argument map on the
// heap on every execute (a few small allocations per call, outside our control); allocation-counting
// tests use this to tell those apart from sinklab's own.
bool inside_onednn_execute();
// Drops every cached primitive and resets the counters.
void clear_matmul_cache();

// Which path a layout takes, e.g. "onednn:brg:avx512_core", "onednn-swapped:gemm:jit", "loop"
// ("empty" when there is nothing to compute). Looks the layout up in the cache like a call does.
std::string matmul_implementation(const MatmulOperand& a_layout, const MatmulOperand& b_layout,
                                  const MatmulOperand& c_layout, bool accumulate, float alpha = 1.0f);

}  // namespace sinklab::kernels
