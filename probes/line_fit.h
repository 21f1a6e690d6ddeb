#pragma once
// Least-squares line y = a + b x and its R^2 (P2's distance over L, P5's log-log slope).
#include <cmath>
#include <vector>

namespace sinklab::probes {

struct LineFit {
  double slope = NAN, intercept = NAN, r2 = NAN;  // NaN when fewer than 2 points or x constant
};
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace sinklab::probes
