#include "probes/gradient_sensitivity.h"

#include <algorithm>
#include <cmath>

namespace sinklab::probes {

void tempered_softmax(const double* l, const double* v, double eps, int n, double T, double* out) {
  double top = -INFINITY;
  for (int k = 0; k < n; ++k) {
    out[k] = (l[k] + (v ? eps * v[k] : 0.0)) / T;
    top = std::max(top, out[k]);
  }
  double sum = 0.0;
  for (int k = 0; k < n; ++k) {
    out[k] = std::exp(out[k] - top);
    sum += out[k];
  }
  for (int k = 0; k < n; ++k) out[k] /= sum;
}

double gradient_sensitivity(const double* l, const double* v, const double* p0, int n, double T, double eps,
                            double* p1) {
  tempered_softmax(l, v, eps, n, T, p1);
  double sq = 0.0;
  for (int k = 0; k < n; ++k) sq += (p1[k] - p0[k]) * (p1[k] - p0[k]);
  return std::sqrt(sq) / eps;
}

}  // namespace sinklab::probes
