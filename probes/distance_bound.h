#pragma once
// Probe P2's per-row distances (docs of the spec: normalization-limits-spec.md section A). For one row
// with weights a [n], vectors x [n, dim], c_k = a_k x_k and the top-N set I_N:
//   s = sum_{I_N} c_k, abar = sum_{I_N} a_k,
//   d_true = sum_{k not in I_N} ||c_k - s||,        d_r2 = ||sum_{k not in I_N} c_k - s|| = ||C - 2 s||,
//   d_max = (1 - abar) d1 + ((n - N) abar - (1 - abar)) X,
//   d1 = max_{k not in I_N, m in I_N} ||x_k - x_m||, X = max_{m in I_N} ||x_m||.
// d_true <= d_max whenever sum a = 1 (c_k - s = a_k (x_k - s/abar) - (abar - a_k) s/abar).
// TopSetScan walks N upwards through one row, so every N of a grid costs O(n dim) and d1 O(n) per added key.
#include <cstdint>
#include <vector>

namespace sinklab::probes {

// ||v||, v of dim doubles.
double euclidean_norm(const double* v, int dim);

struct DistanceTerms {
  double d_true = 0.0, d_r2 = 0.0, d_max = 0.0, abar = 0.0;
};

class TopSetScan {
 public:
  TopSetScan(int max_n, int dim);  // allocates every buffer once

  // Starts a row. `order` from top_order; `pairwise` (may be null: computed from x) holds ||x_k - x_m||
  // at pairwise[k * stride + m]; d1 and X are tracked for N <= track_up_to only (O(n) per added key).
  void start(const double* a, const double* x, int n, const int* order, const float* pairwise, int64_t stride,
             int track_up_to);
  // Extends I_N to the first N keys of the order (N only grows within a row; N < n).
  void grow_to(int N);
  // d_max only `with_d_max` (then N must be <= track_up_to); else it is 0.
  DistanceTerms terms(bool with_d_max) const;

  int size() const { return size_; }
  const double* c() const { return c_.data(); }         // [n, dim]
  const double* total() const { return total_.data(); }  // C = sum_k c_k [dim]
  const double* top_sum() const { return s_.data(); }    // s [dim]

 private:
  double pair_distance(int k, int m) const;

  int dim_;
  int n_ = 0, size_ = 0;
  const double* a_ = nullptr;
  const double* x_ = nullptr;
  const int* order_ = nullptr;
  const float* pairwise_ = nullptr;
  int64_t stride_ = 0;
  int track_up_to_ = 0;
  double abar_ = 0.0, x_max_ = 0.0;
  std::vector<double> c_, total_, s_, best_;  // best_[k] = max_{m in I_N} ||x_k - x_m||
  std::vector<uint8_t> selected_;
};

}  // namespace sinklab::probes
