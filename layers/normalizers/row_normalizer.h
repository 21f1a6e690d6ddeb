#pragma once
// Base for normalizers whose row math is one template over the scalar type. Derived implements
//   template <class Real> void forward(const Real* scores, Real* probs, const RowSpec&, const Real* params,
//                                      Real* scratch) const;
//   template <class Real> void backward(const Real* scores, const Real* probs, const Real* dprobs,
//                                       Real* dscores, const RowSpec&, const Real* params, Real* dparams,
//                                       Real* scratch) const;
// defines them in its .cpp and ends that file with SINKLAB_ROW_MATH(Derived), which instantiates
// both for float (training) and double (the float64 gradient checks).
#include <cmath>

#include "core/kernels/fast_exp.h"
#include "layers/normalizers/normalizer.h"

namespace sinklab {

template <class Derived>
class RowNormalizer : public Normalizer {
 public:
  void forward_row(const float* scores, float* probs, const RowSpec& row, const float* head_params,
                   float* scratch) const override {
    self().template forward<float>(scores, probs, row, head_params, scratch);
  }
  void backward_row(const float* scores, const float* probs, const float* dprobs, float* dscores, const RowSpec& row,
                    const float* head_params, float* dhead_params, float* scratch) const override {
    self().template backward<float>(scores, probs, dprobs, dscores, row, head_params, dhead_params, scratch);
  }
  void forward_row_f64(const double* scores, double* probs, const RowSpec& row, const double* head_params,
                       double* scratch) const override {
    self().template forward<double>(scores, probs, row, head_params, scratch);
  }
  void backward_row_f64(const double* scores, const double* probs, const double* dprobs, double* dscores,
                        const RowSpec& row, const double* head_params, double* dhead_params,
                        double* scratch) const override {
    self().template backward<double>(scores, probs, dprobs, dscores, row, head_params, dhead_params, scratch);
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

// exp for row math: the vectorizable float kernel in training, libm's in the float64 checks.
inline float row_exp(float x) { return kernels::fast_exp(x); }
inline double row_exp(double x) { return std::exp(x); }

}  // namespace sinklab

#define SINKLAB_ROW_MATH(Derived)                                                                              \
  template void Derived::forward<float>(const float*, float*, const RowSpec&, const float*, float*) const;     \
  template void Derived::forward<double>(const double*, double*, const RowSpec&, const double*, double*) const; \
  template void Derived::backward<float>(const float*, const float*, const float*, float*, const RowSpec&,      \
                                         const float*, float*, float*) const;                                   \
  template void Derived::backward<double>(const double*, const double*, const double*, double*, const RowSpec&, \
                                          const double*, double*, double*) const;
