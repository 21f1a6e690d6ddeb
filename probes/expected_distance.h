#pragma once
// The expected distance E of probe P2/P3: the distance sum_{k not in S} ||c_k - s_S|| when the selected
// set S is a uniformly random N-subset of the n keys instead of the top-N set (c_k = a_k x_k [n, dim],
// s_S = sum_S c_k). With p = N / (n - 1) and C = sum_k c_k:
//   E_main = ((n-N)/n) sum_k ||c_k - p (C - c_k)||                          (Jensen: a lower bound)
//   E_up   = ((n-N)/n) sum_k sqrt(||c_k - p (C - c_k)||^2 + p (1-p) (S_k - X_k / (n-2))),
//            S_k = sum_{m != k} ||c_m||^2, X_k = ||C - c_k||^2 - S_k          (sqrt of the second moment)
//   E_mc   = the mean over R random N-subsets (the paper's definition), E_exact over all of them.
// So E_main <= E_exact <= E_up for every row.
#include <cstdint>
#include <vector>

namespace sinklab::probes {

struct ExpectationBounds {
  double main = 0.0, upper = 0.0;
};

// c [n, dim], total = C [dim]; 1 <= N < n.
ExpectationBounds expected_distance_bounds(const double* c, const double* total, int n, int dim, int N);

// Buffers for the Monte Carlo estimate, allocated once per thread.
class MonteCarloScratch {
 public:
  MonteCarloScratch(int max_n, int dim)
      : index_(static_cast<std::size_t>(max_n)),
        mark_(static_cast<std::size_t>(max_n)),
        s_(static_cast<std::size_t>(dim)) {}
  std::vector<int> index_;
  std::vector<uint8_t> mark_;
  std::vector<double> s_;
};

// The mean of the distance over `samples` uniform N-subsets drawn from a generator seeded with `seed`.
double expected_distance_mc(const double* c, int n, int dim, int N, int samples, uint64_t seed,
                            MonteCarloScratch& scratch);

// The exact mean over all C(n, N) subsets (tests; n <= 20).
double expected_distance_exact(const double* c, int n, int dim, int N);

}  // namespace sinklab::probes
