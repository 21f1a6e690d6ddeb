#include "probes/vanishing_bound.h"

#include <algorithm>
#include <cmath>

namespace sinklab::probes {

VanishingRow vanishing_row(const float* weights, int n, double query_norm, double max_key_norm, double temperature) {
  VanishingRow r;
  const double exponent = 2.0 * query_norm * max_key_norm / temperature;
  r.lower = std::exp(-exponent);
  r.upper = std::exp(exponent);
  double hi = 0.0, lo = INFINITY;
  for (int k = 0; k < n; ++k) {
    hi = std::max(hi, static_cast<double>(weights[k]));
    lo = std::min(lo, static_cast<double>(weights[k]));
  }
  r.n_max_weight = n * hi;
  r.n_min_weight = n * lo;
  // float32 weights: 1e-4 relative slack (the weights' own rounding is ~1e-6 relative).
  r.upper_violated = r.n_max_weight > r.upper * (1.0 + 1e-4);
  r.lower_checked = r.lower / n >= kSmallestCheckedWeight;
  r.violated = r.upper_violated || (r.lower_checked && r.n_min_weight < r.lower * (1.0 - 1e-4));
  return r;
}

}  // namespace sinklab::probes
