#pragma once
// A proportion over seeds (k of n heads are sink heads) with its exact 95% Clopper-Pearson interval:
// the interval of a binomial count, which stays in [0, 1] for every k and n, unlike mean +/- t s / sqrt(n)
// over per-seed shares (report/confidence_interval.h, for means).
#include <string>

#include "report/confidence_interval.h"

namespace sinklab {

struct ProportionCi {
  int successes = 0, trials = 0;
  double estimate = 0.0;        // successes / trials; NaN when trials = 0
  double lower = 0.0, upper = 0.0;  // the 95% interval; NaN when trials = 0
  bool defined() const { return trials > 0; }
};

// Clopper-Pearson: lower = the 0.025 quantile of Beta(k, n - k + 1) (0 when k = 0), upper = the 0.975
// quantile of Beta(k + 1, n - k) (1 when k = n). Throws std::invalid_argument unless 0 <= k <= n.
ProportionCi proportion_ci95(int successes, int trials);

// "0.3333 [0.0084, 0.9057]", or "-" when trials = 0.
std::string format_proportion_ci(const ProportionCi& ci, NumberStyle style);

}  // namespace sinklab
