#pragma once
// Embedding lookup: rows of a [vocab, dim] table gathered by integer ids.
#include <cstdint>

namespace sinklab::kernels {

// Index of the first id outside [0, vocab), or -1 when all are valid (the op turns it into an error).
int64_t first_invalid_id(const int32_t* ids, int64_t n, int64_t vocab);

// table: [vocab, dim] contiguous; ids: [n], each in [0, vocab); y: [n, dim]; y[i] = table[ids[i]]
void embedding_forward(const float* table, const int32_t* ids, float* y, int64_t n, int64_t dim);
// dy: [n, dim]; dtable: [vocab, dim] += dy[i] at row ids[i] (repeated ids add up, in order)
void embedding_backward(const int32_t* ids, const float* dy, float* dtable, int64_t n, int64_t dim);

// Naive twins for tests.
void embedding_forward_reference(const float* table, const int32_t* ids, float* y, int64_t n, int64_t dim);
void embedding_backward_reference(const int32_t* ids, const float* dy, float* dtable, int64_t n, int64_t dim);

}  // namespace sinklab::kernels
