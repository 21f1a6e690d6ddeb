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

// Copies `op` (dims [d0, d1, rows, cols]) densely in the order [d0, d1, outer, inner], where inner is cols
// (row-major copy) or rows (column-major copy, for operands whose rows are contiguous).
template <class Out>
void round_operand(const float* src, const MatmulOperand& op, bool column_major, Out* dst) {
  const int64_t d1 = op.dims[1];
  const int64_t outer = column_major ? op.dims[3] : op.dims[2];
  const int64_t inner = column_major ? op.dims[2] : op.dims[3];
  const int64_t outer_stride = column_major ? op.strides[3] : op.strides[2];
  const int64_t inner_stride = column_major ? op.strides[2] : op.strides[3];
  const int64_t lines = op.dims[0] * d1 * outer;
  [[maybe_unused]] const bool parallel = lines * inner >= kParallelMinElements;  // used by the pragma only
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t line = 0; line < lines; ++line) {
    const int64_t o = line % outer, batch = line / outer;
    const float* in = src + (batch / d1) * op.strides[0] + (batch % d1) * op.strides[1] + o * outer_stride;
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
}

}  // namespace

void round_operand_to_bf16(const float* src, const MatmulOperand& op, bool column_major, uint16_t* dst) {
  round_operand(src, op, column_major, dst);
}

void round_operand_to_bf16_floats(const float* src, const MatmulOperand& op, bool column_major, float* dst) {
  round_operand(src, op, column_major, dst);
}

void round_to_bf16_bits(const float* src, int64_t n, uint16_t* dst) {
  round_operand(src, dense_operand(1, n), false, dst);
}

}  // namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
