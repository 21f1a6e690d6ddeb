#include "probes/distance_bound.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sinklab::probes {

double euclidean_norm(const double* v, int dim) {
  double s = 0.0;
  for (int i = 0; i < dim; ++i) s += v[i] * v[i];
  return std::sqrt(s);
}

TopSetScan::TopSetScan(int max_n, int dim)
    : dim_(dim),
      c_(static_cast<std::size_t>(max_n) * dim),
      total_(static_cast<std::size_t>(dim)),
      s_(static_cast<std::size_t>(dim)),
      best_(static_cast<std::size_t>(max_n)),
      selected_(static_cast<std::size_t>(max_n)) {}

void TopSetScan::start(const double* a, const double* x, int n, const int* order, const float* pairwise, int64_t stride,
                       int track_up_to) {
  a_ = a;
  x_ = x;
  n_ = n;
  order_ = order;
  pairwise_ = pairwise;
  stride_ = stride;
  track_up_to_ = track_up_to;
  size_ = 0;
  abar_ = 0.0;
  x_max_ = 0.0;
  std::fill(total_.begin(), total_.end(), 0.0);
  std::fill(s_.begin(), s_.end(), 0.0);
  for (int k = 0; k < n; ++k) {
    double* ck = &c_[static_cast<std::size_t>(k) * dim_];
    for (int i = 0; i < dim_; ++i) {
      ck[i] = a[k] * x[static_cast<std::size_t>(k) * dim_ + i];
      total_[static_cast<std::size_t>(i)] += ck[i];
    }
    best_[static_cast<std::size_t>(k)] = 0.0;
    selected_[static_cast<std::size_t>(k)] = 0;
  }
}

double TopSetScan::pair_distance(int k, int m) const {
  if (pairwise_) return pairwise_[static_cast<int64_t>(k) * stride_ + m];
  double s = 0.0;
  for (int i = 0; i < dim_; ++i) {
    const double d = x_[static_cast<std::size_t>(k) * dim_ + i] - x_[static_cast<std::size_t>(m) * dim_ + i];
    s += d * d;
  }
  return std::sqrt(s);
}

void TopSetScan::grow_to(int N) {
  for (; size_ < N; ++size_) {
    const int m = order_[size_];
    selected_[static_cast<std::size_t>(m)] = 1;
    abar_ += a_[m];
    const double* cm = &c_[static_cast<std::size_t>(m) * dim_];
    for (int i = 0; i < dim_; ++i) s_[static_cast<std::size_t>(i)] += cm[i];
    if (size_ < track_up_to_) {
      x_max_ = std::max(x_max_, euclidean_norm(x_ + static_cast<std::size_t>(m) * dim_, dim_));
      for (int k = 0; k < n_; ++k)
        best_[static_cast<std::size_t>(k)] = std::max(best_[static_cast<std::size_t>(k)], pair_distance(k, m));
    }
  }
}

DistanceTerms TopSetScan::terms(bool with_d_max) const {
  if (with_d_max && size_ > track_up_to_) throw std::logic_error("TopSetScan: d_max asked beyond the tracked N");
  DistanceTerms t;
  t.abar = abar_;
  double d1 = 0.0;
  for (int k = 0; k < n_; ++k) {
    if (selected_[static_cast<std::size_t>(k)]) continue;
    const double* ck = &c_[static_cast<std::size_t>(k) * dim_];
    double sq = 0.0;
    for (int i = 0; i < dim_; ++i) {
      const double d = ck[i] - s_[static_cast<std::size_t>(i)];
      sq += d * d;
    }
    t.d_true += std::sqrt(sq);
    if (with_d_max) d1 = std::max(d1, best_[static_cast<std::size_t>(k)]);
  }
  double r2 = 0.0;
  for (int i = 0; i < dim_; ++i) {
    const double d = total_[static_cast<std::size_t>(i)] - 2.0 * s_[static_cast<std::size_t>(i)];
    r2 += d * d;
  }
  t.d_r2 = std::sqrt(r2);
  if (with_d_max) t.d_max = (1.0 - abar_) * d1 + ((n_ - size_) * abar_ - (1.0 - abar_)) * x_max_;
  return t;
}

}  // namespace sinklab::probes
