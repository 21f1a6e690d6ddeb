#include "probes/summary_numbers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sinklab::probes {

std::string num(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

double median(std::vector<double> v) {
  std::erase_if(v, [](double x) { return std::isnan(x); });
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (const double x : v)
    if (!std::isnan(x)) {
      s += x;
      ++n;
    }
  return n ? s / n : NAN;
}

}  // namespace sinklab::probes
