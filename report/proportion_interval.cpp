#include "report/proportion_interval.h"

#include <boost/math/distributions/beta.hpp>
#include <cmath>
#include <stdexcept>

namespace sinklab {

ProportionCi proportion_ci95(int successes, int trials) {
  if (trials < 0 || successes < 0 || successes > trials)
    throw std::invalid_argument("proportion_ci95: need 0 <= successes <= trials (got " + std::to_string(successes) +
                                " of " + std::to_string(trials) + ")");
  ProportionCi ci;
  ci.successes = successes;
  ci.trials = trials;
  if (trials == 0) {
    ci.estimate = ci.lower = ci.upper = std::nan("");
    return ci;
  }
  const double k = successes, n = trials, alpha = 0.05;
  ci.estimate = k / n;
  using boost::math::beta_distribution;
  ci.lower = successes == 0 ? 0.0 : quantile(beta_distribution<double>(k, n - k + 1), alpha / 2);
  ci.upper = successes == trials ? 1.0 : quantile(beta_distribution<double>(k + 1, n - k), 1 - alpha / 2);
  return ci;
}

std::string format_proportion_ci(const ProportionCi& ci, NumberStyle style) {
  if (!ci.defined()) return "-";
  return format_number(ci.estimate, style) + " [" + format_number(ci.lower, style) + ", " +
         format_number(ci.upper, style) + "]";
}

}  // namespace sinklab
