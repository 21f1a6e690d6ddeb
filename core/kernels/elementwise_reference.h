#pragma once
// Naive twins of the elementwise kernels (one flat loop, offsets from the multi-index, double math),
// for tests to compare against. Same contracts as core/kernels/elementwise.h.
#include "core/kernels/elementwise_layout.h"

namespace sinklab::kernels {

void add_forward_reference(const float* a, const float* b, float* y, const ElementwiseLayout& l);
void sub_forward_reference(const float* a, const float* b, float* y, const ElementwiseLayout& l);
void mul_forward_reference(const float* a, const float* b, float* y, const ElementwiseLayout& l);
void div_forward_reference(const float* a, const float* b, float* y, const ElementwiseLayout& l);
void add_backward_reference(const float* dy, float* da, float* db, const ElementwiseLayout& l);
void sub_backward_reference(const float* dy, float* da, float* db, const ElementwiseLayout& l);
void mul_backward_reference(const float* a, const float* b, const float* dy, float* da, float* db,
                            const ElementwiseLayout& l);
void div_backward_reference(const float* a, const float* b, const float* dy, float* da, float* db,
                            const ElementwiseLayout& l);

void add_scalar_forward_reference(const float* x, float c, float* y, const ElementwiseLayout& l);
void mul_scalar_forward_reference(const float* x, float c, float* y, const ElementwiseLayout& l);
void pow_scalar_forward_reference(const float* x, float p, float* y, const ElementwiseLayout& l);
void neg_forward_reference(const float* x, float* y, const ElementwiseLayout& l);
void copy_forward_reference(const float* x, float* y, const ElementwiseLayout& l);
void mul_scalar_backward_reference(const float* dy, float c, float* dx, const ElementwiseLayout& l);
void pow_scalar_backward_reference(const float* x, float p, const float* dy, float* dx, const ElementwiseLayout& l);

// Offsets of the flat output index i in the first and second input.
int64_t offset_a(const ElementwiseLayout& l, int64_t i);
int64_t offset_b(const ElementwiseLayout& l, int64_t i);

}  // namespace sinklab::kernels
