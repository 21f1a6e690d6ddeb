#pragma once
// The naive twin of kernels::matmul that tests compare against: the same signature and layout rules
// (MatmulOperand, broadcast batch dims, accumulate, alpha), plain loops, sums accumulated in double
// and rounded to float once per element.
#include "core/kernels/matmul.h"

namespace sinklab::kernels {

// C (+)= alpha * A x B for every batch index; see matmul() for shapes. Throws std::invalid_argument
// on inconsistent layouts, exactly like matmul().
void matmul_reference(const float* a, const MatmulOperand& a_layout, const float* b, const MatmulOperand& b_layout,
                      float* c, const MatmulOperand& c_layout, bool accumulate, float alpha = 1.0f);

}  // namespace sinklab::kernels
