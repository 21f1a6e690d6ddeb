#include "core/kernels/matmul_cache_key.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#ifdef SINKLAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace sinklab::kernels {

MatmulOperand canonical_operand(MatmulOperand op, bool is_input) {
  if (is_input)
    for (size_t i = 0; i < 2; ++i)
      if (op.strides[i] == 0) op.dims[i] = 1;
  for (size_t i = 4; i-- > 0;) {
    if (op.dims[i] != 1) continue;
    int64_t inner = 1;
    for (size_t j = i + 1; j < 4; ++j) inner += (op.dims[j] - 1) * op.strides[j];
    op.strides[i] = inner;
  }
  return op;
}

bool MatmulKey::operator==(const MatmulKey& o) const {
  for (size_t i = 0; i < 3; ++i)
    if (layouts[i].dims != o.layouts[i].dims || layouts[i].strides != o.layouts[i].strides) return false;
  return accumulate == o.accumulate && alpha_bits == o.alpha_bits;
}

size_t MatmulKeyHash::operator()(const MatmulKey& key) const noexcept {
  uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ULL + (h >> 29); };
  for (const auto& op : key.layouts)
    for (size_t i = 0; i < 4; ++i) {
      mix(static_cast<uint64_t>(op.dims[i]));
      mix(static_cast<uint64_t>(op.strides[i]));
    }
  mix(key.accumulate);
  mix(key.alpha_bits);
  return static_cast<size_t>(h);
}

MatmulKey matmul_key(const MatmulOperand& a, const MatmulOperand& b, const MatmulOperand& c, bool accumulate,
                     float alpha) {
  MatmulKey key{{canonical_operand(a, true), canonical_operand(b, true), canonical_operand(c, false)}, accumulate, 0};
  std::memcpy(&key.alpha_bits, &alpha, sizeof alpha);
  return key;
}

dnnl::primitive_attr matmul_attr(bool accumulate, float alpha) {
  dnnl::post_ops ops;
  if (alpha != 1.0f) {
#if DNNL_VERSION_MAJOR >= 3
    ops.append_eltwise(dnnl::algorithm::eltwise_linear, alpha, 0.0f);
#else
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, alpha, 0.0f);
#endif
  }
  if (accumulate) ops.append_sum(1.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return attr;
}

std::string describe_operand(const MatmulOperand& op) {
  std::ostringstream out;
  out << '[' << op.dims[0] << ',' << op.dims[1] << ',' << op.dims[2] << ',' << op.dims[3] << "] strides ["
      << op.strides[0] << ',' << op.strides[1] << ',' << op.strides[2] << ',' << op.strides[3] << ']';
  return out.str();
}

std::string describe_matmul(const MatmulOperand& a, const MatmulOperand& b, const MatmulOperand& c) {
  return "A " + describe_operand(a) + " x B " + describe_operand(b) + " -> C " + describe_operand(c);
}

void check_matmul_not_in_parallel_region([[maybe_unused]] const char* kernel) {
#ifdef SINKLAB_HAVE_OPENMP
  if (omp_in_parallel()) {
    std::fprintf(stderr,
                 "sinklab::kernels::%s called from inside an OpenMP parallel region; call it from serial code "
                 "(oneDNN parallelizes internally)\n",
                 kernel);
    std::abort();
  }
#endif
}

}  // namespace sinklab::kernels
