#pragma once
// Mean +/- 95% confidence interval over seeds with Student's t (n - 1 degrees of freedom), from
// Boost.Math's students_t distribution, so no table caps the seed count. Proportions (a sink rate)
// take a binomial interval instead (report/proportion_interval.h), means of shares in [0, 1] a
// bootstrap one (stats/bootstrap_interval.h), printed as [lo, hi].
#include <span>
#include <string>
#include <string_view>

#include "stats/bootstrap_interval.h"

namespace sinklab {

// P(T <= t) for Student's t with dof >= 1 degrees of freedom.
double student_t_cdf(double t, int dof);
// The t with P(T <= t) = p, p in (0, 1); e.g. student_t_quantile(0.975, 4) = 2.776.
double student_t_quantile(double p, int dof);

struct MeanCi {
  int n = 0;
  double mean = 0.0;        // NaN when n = 0
  double half_width = 0.0;  // t_{0.975, n-1} * s / sqrt(n); NaN when n < 2 (undefined)
  bool defined() const { return n >= 2; }
};

// NaN values are skipped (a diverged run has no meaningful mean); n counts the values used.
MeanCi mean_ci95(std::span<const double> values);

enum class NumberStyle { fixed4, fixed1, integer, scientific };
std::string format_number(double v, NumberStyle style);
// "0.9999 ± 0.0002", "0.9999 (n=1)" or "-" for n = 0; plus_minus lets text output use "+/-".
std::string format_mean_ci(const MeanCi& ci, NumberStyle style, std::string_view plus_minus = "±");
// "0.1557 [0.0000, 0.4671]", "0.9999 (n=1)" or "-" for n = 0.
std::string format_bootstrap_ci(const BootstrapMeanCi& ci, NumberStyle style);

}  // namespace sinklab
