#include "probes/top_set.h"

#include <algorithm>
#include <numeric>

namespace sinklab::probes {

void top_order(const double* weights, int n, int count, int* order) {
  std::iota(order, order + n, 0);
  const auto heavier = [weights](int i, int j) {
    return weights[i] > weights[j] || (weights[i] == weights[j] && i < j);
  };
  std::partial_sort(order, order + std::min(count, n), order + n, heavier);
}

}  // namespace sinklab::probes
