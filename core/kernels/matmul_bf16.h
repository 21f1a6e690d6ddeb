#pragma once
// Mixed-precision matmul: C (+)= alpha * bf16(A) x bf16(B) with float32 accumulation and a float32 C.
// bf16 is a property of the call, not of the tensors: A and B stay float32 in memory and are rounded to
// bf16 (round to nearest even) into scratch buffers owned by this kernel on every call.
//
// The layout contract is kernels::matmul's (core/kernels/matmul.h): the same rank-4 operands, strides,
// broadcasts, accumulate and alpha, checked by check_matmul_layouts, and the same caller rules (not from
// inside an OpenMP parallel region; calls from several std::threads are serialized).
//
// Paths (see docs/performance.md, "bf16 matmul"):
// - native: A and B rounded into dense bf16 copies (keeping whichever of their last two dims is
//   contiguous), one oneDNN matmul primitive with bf16 sources and a float32 destination, cached per
//   layout. A C with unit stride down its columns (a weight gradient written into a transposed view) is
//   computed swapped, C^T = B^T x A^T. A C layout oneDNN would still serve only with its reference kernel is
//   computed into a dense float32 scratch and then copied (or added) into C.
// - emulated, where oneDNN has no bf16 instructions (the CPU, or SINKLAB_MAX_ISA): A and B rounded to
//   bf16 but stored as float32, then kernels::matmul. A product of two bf16 values is exact in float32,
//   so this computes the same sums; oneDNN's own emulation (gemm:jit at avx512_core, none at avx2) ran
//   at a third of the float32 speed.
// Scratch buffers grow on the first call that needs more and are reused: the steady state allocates
// nothing of its own.
#include "core/kernels/matmul.h"

#include <bit>
#include <cstdint>
#include <string>

namespace sinklab::kernels {

// C (+)= alpha * bf16(A) x bf16(B), float32 accumulation; the rest as kernels::matmul.
void matmul_bf16(const float* a, const MatmulOperand& a_layout, const float* b, const MatmulOperand& b_layout,
                 float* c, const MatmulOperand& c_layout, bool accumulate, float alpha = 1.0f);

struct Bf16MatmulSupport {
  bool native;                 // oneDNN runs bf16 products in hardware here (AVX512_BF16 or AMX)
  std::string implementation;  // what a dense bf16 matmul runs, e.g. "onednn-bf16:brg:avx512_core_bf16"
};
// Decided once per process, under the SINKLAB_MAX_ISA cap (below avx512 there is no native bf16).
Bf16MatmulSupport bf16_matmul_support();

// Which path a layout takes: "onednn-bf16:<oneDNN implementation>", "onednn-bf16-swapped:<...>",
// "onednn-bf16-dense-c:<...>" (C
// through a dense scratch), "emulated:<kernels::matmul_implementation of the float32 copies>", or "empty".
std::string matmul_bf16_implementation(const MatmulOperand& a_layout, const MatmulOperand& b_layout,
                                       const MatmulOperand& c_layout, bool accumulate, float alpha = 1.0f);

// Drops every cached bf16 primitive and the scratch buffers.
void clear_matmul_bf16_cache();

// True while this thread is inside oneDNN's execute call for a bf16 primitive (see
// kernels::inside_onednn_execute(): oneDNN 2.6 allocates its argument map there).
bool inside_bf16_onednn_execute();

// The bf16 bits of x, rounded to nearest even. NaN stays NaN (quiet, sign kept), +-inf stay +-inf,
// float32 denormals round like any other value (no flush to zero); values beyond the largest bf16
// round to infinity as round-to-nearest requires.
constexpr uint16_t bf16_bits(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
constexpr float bf16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }
// x rounded to the nearest bf16 value, as float32.
constexpr float round_to_bf16(float x) { return bf16_to_float(bf16_bits(x)); }
// out[i] = bf16_bits(x[i]) for i < n: the vectorized loop matmul_bf16 copies each line of its inputs with.
void round_to_bf16_bits(const float* x, int64_t n, uint16_t* out);

}  // namespace sinklab::kernels
