#include "probes/separability.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sinklab::probes {
namespace {

double distance(const double* u, const double* v, int dim) {
  double sq = 0.0;
  for (int i = 0; i < dim; ++i) sq += (u[i] - v[i]) * (u[i] - v[i]);
  return std::sqrt(sq);
}

}  // namespace

Separability separability(const double* unit_c, int n, int dim, const int* order, int N, double* s) {
  if (N < 1 || N >= n) throw std::invalid_argument("separability: need 1 <= N < n");
  std::fill(s, s + dim, 0.0);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < dim; ++j) s[j] += unit_c[static_cast<std::size_t>(order[i]) * dim + j];
  // The unselected keys are order[N .. n-1] (top_order leaves a permutation of all n keys).
  double r = std::numeric_limits<double>::infinity();
  for (int i = N; i < n; ++i) r = std::min(r, distance(s, unit_c + static_cast<std::size_t>(order[i]) * dim, dim));
  int inside = 0;
  for (int i = 0; i < N; ++i)
    if (distance(s, unit_c + static_cast<std::size_t>(order[i]) * dim, dim) < r) ++inside;
  return {static_cast<double>(inside) / N, r};
}

}  // namespace sinklab::probes
