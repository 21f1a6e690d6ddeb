#include "report/confidence_interval.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace sinklab {

double student_t_cdf(double t, int dof) {
  if (dof < 1) throw std::invalid_argument("student_t_cdf: dof must be >= 1");
  if (std::isnan(t)) return t;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  return cdf(boost::math::students_t_distribution<double>(dof), t);
}

double student_t_quantile(double p, int dof) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("student_t_quantile: p must be in (0, 1)");
  if (dof < 1) throw std::invalid_argument("student_t_quantile: dof must be >= 1");
  return quantile(boost::math::students_t_distribution<double>(dof), p);
}

MeanCi mean_ci95(std::span<const double> values) {
  MeanCi ci;
  double sum = 0.0;
  for (double v : values)
    if (!std::isnan(v)) {
      sum += v;
      ++ci.n;
    }
  if (ci.n == 0) {
    ci.mean = ci.half_width = std::nan("");
    return ci;
  }
  ci.mean = sum / ci.n;
  if (ci.n < 2) {
    ci.half_width = std::nan("");
    return ci;
  }
  double ss = 0.0;
  for (double v : values)
    if (!std::isnan(v)) ss += (v - ci.mean) * (v - ci.mean);
  const double sd = std::sqrt(ss / (ci.n - 1));
  ci.half_width = student_t_quantile(0.975, ci.n - 1) * sd / std::sqrt(static_cast<double>(ci.n));
  return ci;
}

std::string format_number(double v, NumberStyle style) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  switch (style) {
    case NumberStyle::fixed4: std::snprintf(buf, sizeof buf, "%.4f", v); break;
    case NumberStyle::fixed1: std::snprintf(buf, sizeof buf, "%.1f", v); break;
    case NumberStyle::integer: std::snprintf(buf, sizeof buf, "%.0f", v); break;
    case NumberStyle::scientific: std::snprintf(buf, sizeof buf, "%.2e", v); break;
  }
  return buf;
}

std::string format_mean_ci(const MeanCi& ci, NumberStyle style, std::string_view plus_minus) {
  if (ci.n == 0) return "-";
  if (!ci.defined()) return format_number(ci.mean, style) + " (n=1)";
  return format_number(ci.mean, style) + " " + std::string(plus_minus) + " " + format_number(ci.half_width, style);
}

std::string format_bootstrap_ci(const BootstrapMeanCi& ci, NumberStyle style) {
  if (ci.n == 0) return "-";
  if (!ci.defined()) return format_number(ci.mean, style) + " (n=1)";
  return format_number(ci.mean, style) + " [" + format_number(ci.lower, style) + ", " + format_number(ci.upper, style) +
         "]";
}

}  // namespace sinklab
