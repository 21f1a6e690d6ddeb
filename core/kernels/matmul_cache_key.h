#pragma once
// What kernels::matmul and kernels::matmul_bf16 share about a layout: its canonical form, the key their
// primitive caches use, oneDNN's attribute for alpha and accumulation, and the text of error messages.
// Internal to the two kernels (core/kernels/matmul.cpp, matmul_bf16.cpp).
#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/kernels/matmul.h"

namespace sinklab::kernels {

// Stride-0 batch dims of inputs become size-1 broadcasts and size-1 dims get a canonical stride, so equal
// computations share one cache entry and oneDNN sees plain layouts.
MatmulOperand canonical_operand(MatmulOperand op, bool is_input);

struct MatmulKey {
  std::array<MatmulOperand, 3> layouts;  // canonical A, B, C
  bool accumulate;
  uint32_t alpha_bits;  // bit pattern: exact match, no float comparison surprises

  bool operator==(const MatmulKey& o) const;
};

struct MatmulKeyHash {
  size_t operator()(const MatmulKey& key) const noexcept;
};

MatmulKey matmul_key(const MatmulOperand& a, const MatmulOperand& b, const MatmulOperand& c, bool accumulate,
                     float alpha);

// alpha as an eltwise_linear post-op before the sum: the same attribute in oneDNN 2.x and 3.x (3.x
// dropped output scales), and dst = alpha * (A x B) + 1 * dst_old in that order.
dnnl::primitive_attr matmul_attr(bool accumulate, float alpha);

// "[b0,b1,m,k] strides [...]" of one operand, and "A ... x B ... -> C ..." of a call.
std::string describe_operand(const MatmulOperand& op);
std::string describe_matmul(const MatmulOperand& a, const MatmulOperand& b, const MatmulOperand& c);

// Aborts with a message naming `kernel` when called inside an OpenMP parallel region (oneDNN threads
// itself; throwing would not help, an exception cannot leave a parallel region).
void check_matmul_not_in_parallel_region(const char* kernel);

}  // namespace sinklab::kernels
