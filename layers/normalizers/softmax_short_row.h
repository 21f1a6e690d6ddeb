#pragma once
// The softmax of one short row (at most kSoftmaxShortRow keys), compiled per ISA level
// (layers/normalizers/softmax_short_row.isa.cpp): the row path of softmax blocks below AVX-512 and of
// short rows anywhere.

namespace sinklab {

inline constexpr int kSoftmaxShortRow = 16;

// probs[k] = softmax(scores * inv_t)[k] for k < n. scores, probs: [n], n <= kSoftmaxShortRow
void softmax_short_row(const float* scores, float* probs, int n, float inv_t);

}  // namespace sinklab
