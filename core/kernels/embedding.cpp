#include "core/kernels/embedding.h"

#include <cstring>

#include "core/kernels/elementwise_layout.h"

namespace sinklab::kernels {

int64_t first_invalid_id(const int32_t* ids, int64_t n, int64_t vocab) {
  for (int64_t i = 0; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= vocab) return i;
  return -1;
}

void embedding_forward(const float* table, const int32_t* ids, float* y, int64_t n, int64_t dim) {
  [[maybe_unused]] const bool parallel = n > 1 && n * dim >= kParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(y + i * dim, table + static_cast<int64_t>(ids[i]) * dim, static_cast<size_t>(dim) * sizeof(float));
}

void embedding_backward(const int32_t* ids, const float* dy, float* dtable, int64_t n, int64_t dim) {
  // One thread: two positions with the same id write the same table row.
  for (int64_t i = 0; i < n; ++i) {
    float* row = dtable + static_cast<int64_t>(ids[i]) * dim;
    const float* g = dy + i * dim;
    for (int64_t k = 0; k < dim; ++k) row[k] += g[k];
  }
}

void embedding_forward_reference(const float* table, const int32_t* ids, float* y, int64_t n, int64_t dim) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < dim; ++k) y[i * dim + k] = table[ids[i] * dim + k];
}

void embedding_backward_reference(const int32_t* ids, const float* dy, float* dtable, int64_t n, int64_t dim) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < dim; ++k) dtable[ids[i] * dim + k] += dy[i * dim + k];
}

}  // namespace sinklab::kernels
