#include "core/kernels/matmul_reference.h"

namespace sinklab::kernels {

void matmul_reference(const float* a, const MatmulOperand& a_layout, const float* b, const MatmulOperand& b_layout,
                      float* c, const MatmulOperand& c_layout, bool accumulate, float alpha) {
  const MatmulShape s = check_matmul_layouts(a_layout, b_layout, c_layout);
  // A size-1 batch dim broadcasts: its index is always 0.
  const auto offset = [](const MatmulOperand& op, int64_t i0, int64_t i1, int64_t row, int64_t col) {
    return (op.dims[0] == 1 ? 0 : i0 * op.strides[0]) + (op.dims[1] == 1 ? 0 : i1 * op.strides[1]) +
           row * op.strides[2] + col * op.strides[3];
  };
  for (int64_t i0 = 0; i0 < s.batch0; ++i0)
    for (int64_t i1 = 0; i1 < s.batch1; ++i1)
      for (int64_t i = 0; i < s.m; ++i)
        for (int64_t j = 0; j < s.n; ++j) {
          double sum = 0.0;
          for (int64_t k = 0; k < s.k; ++k)
            sum += static_cast<double>(a[offset(a_layout, i0, i1, i, k)]) *
                   static_cast<double>(b[offset(b_layout, i0, i1, k, j)]);
          float& out = c[offset(c_layout, i0, i1, i, j)];
          const double scaled = static_cast<double>(alpha) * sum;
          out = static_cast<float>(accumulate ? static_cast<double>(out) + scaled : scaled);
        }
}

}  // namespace sinklab::kernels
