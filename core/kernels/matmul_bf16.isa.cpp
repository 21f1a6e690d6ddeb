// The copies kernels::matmul_bf16 makes of its inputs (core/kernels/matmul_bf16.cpp): each operand rounded to bf16
// into a dense buffer. Compiled once per ISA level (core/cpu/isa_dispatch.h). Integer arithmetic on the bits, so
// the loops vectorize without fast-math, denormals are rounded rather than flushed (the CPU's bf16 conversion
// instructions flush them), and the result does not depend on the thread count.
#include <cstdint>
#include <cstring>

#include "core/cpu/isa_region.h"
#include "core/kernels/elementwise_layout.h"
#include "core/kernels/matmul.h"

SINKLAB_ISA_BEGIN

namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE {
namespace {

// The bf16 bits of a float's bits, round to nearest even; NaN kept as a quiet NaN (the same rule as
// kernels::bf16_bits, written branch-free here so that it vectorizes).
inline uint32_t rounded_bits(uint32_t bits) {
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (bits >> 16) | 0x0040u;
  return (bits & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded;
}

inline void store(uint16_t* out, uint32_t bf16) { *out = static_cast<uint16_t>(bf16); }
inline void store(float* out, uint32_t bf16) {
  const uint32_t widened = bf16 << 16;
  std::memcpy(out, &widened, sizeof widened);
}

// One operand's copy, split into lines of its contiguous dim: dense in the order [d0, d1, outer, inner], where
// inner is cols (row-major copy) or rows (column-major copy, for operands whose rows are contiguous).
struct CopyPlan {
  const float* src;
  int64_t d1, outer, inner, batch0_stride, batch1_stride, outer_stride, inner_stride, lines;

  CopyPlan(const float* from, const MatmulOperand& op, bool column_major)
      : src(from),
        d1(op.dims[1]),
        outer(column_major ? op.dims[3] : op.dims[2]),
        inner(column_major ? op.dims[2] : op.dims[3]),
        batch0_stride(op.strides[0]),
        batch1_stride(op.strides[1]),
        outer_stride(column_major ? op.strides[3] : op.strides[2]),
        inner_stride(column_major ? op.strides[2] : op.strides[3]),
        lines(op.dims[0] * op.dims[1] * outer) {}

  template <class Out>
  void copy_line(int64_t line, Out* dst) const {
    const int64_t o = line % outer, batch = line / outer;
    const float* in = src + (batch / d1) * batch0_stride + (batch % d1) * batch1_stride + o * outer_stride;
    Out* out = dst + line * inner;
    if (inner_stride == 1) {
      for (int64_t i = 0; i < inner; ++i) {
        uint32_t bits;
        std::memcpy(&bits, in + i, sizeof bits);
        store(out + i, rounded_bits(bits));
      }
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        uint32_t bits;
        std::memcpy(&bits, in + i * inner_stride, sizeof bits);
        store(out + i, rounded_bits(bits));
      }
    }
  }
};

// Both copies in one parallel region: on a busy machine every region start and barrier waits for a descheduled
// thread, so one region costs less than two.
template <class Out>
void round_pair(const CopyPlan& a, Out* a_dst, const CopyPlan& b, Out* b_dst) {
  [[maybe_unused]] const bool parallel =  // used by the pragma only
      a.lines * a.inner + b.lines * b.inner >= kParallelMinElements;
#pragma omp parallel if (parallel)
  {
#pragma omp for schedule(static) nowait
    for (int64_t line = 0; line < a.lines; ++line) a.copy_line(line, a_dst);
#pragma omp for schedule(static) nowait
    for (int64_t line = 0; line < b.lines; ++line) b.copy_line(line, b_dst);
  }
}

}  // namespace

void round_operands_to_bf16(const float* a, const MatmulOperand& a_op, bool a_column_major, uint16_t* a_dst,
                            const float* b, const MatmulOperand& b_op, bool b_column_major, uint16_t* b_dst) {
  round_pair(CopyPlan(a, a_op, a_column_major), a_dst, CopyPlan(b, b_op, b_column_major), b_dst);
}

void round_operands_to_bf16_floats(const float* a, const MatmulOperand& a_op, bool a_column_major, float* a_dst,
                                   const float* b, const MatmulOperand& b_op, bool b_column_major, float* b_dst) {
  round_pair(CopyPlan(a, a_op, a_column_major), a_dst, CopyPlan(b, b_op, b_column_major), b_dst);
}

void round_to_bf16_bits(const float* src, int64_t n, uint16_t* dst) {
  CopyPlan(src, dense_operand(1, n), false).copy_line(0, dst);
}

}  // namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
