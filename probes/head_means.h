#pragma once
// Per-head means over every window's rows of one N entry of one length (P2-P4 and P6 read them).
#include <cmath>
#include <cstdint>
#include <vector>

#include "probes/probe_results.h"
#include "probes/summary_numbers.h"

namespace sinklab::probes {

// NaN where the head had no row.
struct HeadMeans {
  int layer = 0, head = 0;
  double d_true = NAN, d_r2 = NAN, d_max = NAN, e_main = NAN, e_up = NAN, e_mc = NAN, separability = NAN;
  int64_t rows = 0;
};
std::vector<HeadMeans> head_means(const ProbeResults& r, int plan, int entry);

// The mean over heads of one column of head_means.
template <class Field>
double heads_mean(const std::vector<HeadMeans>& m, Field f) {
  std::vector<double> v;
  for (const HeadMeans& h : m) v.push_back(f(h));
  return mean_of(v);
}

}  // namespace sinklab::probes
