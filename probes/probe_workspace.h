#pragma once
// One thread's buffers for the probes, sized once for the longest length and the vector width, so that
// no row allocates. The collector fills x, x_norm, pairwise, a, q and order; the probes use the rest.
#include <cstddef>
#include <vector>

#include "probes/distance_bound.h"
#include "probes/expected_distance.h"
#include "probes/sensitivity_rows.h"

namespace sinklab::probes {

struct ProbeWorkspace {
  ProbeWorkspace(int max_len, int dim, int head_dim, const SensitivityRows& sensitivity)
      : dim(dim),
        x(static_cast<std::size_t>(max_len) * dim),
        x_norm(static_cast<std::size_t>(max_len)),
        unit_c(static_cast<std::size_t>(max_len) * dim),
        pairwise(static_cast<std::size_t>(max_len) * max_len),
        a(static_cast<std::size_t>(max_len)),
        logits(static_cast<std::size_t>(max_len)),
        direction(static_cast<std::size_t>(max_len)),
        p0(static_cast<std::size_t>(max_len)),
        p1(static_cast<std::size_t>(max_len)),
        row_scratch(static_cast<std::size_t>(sensitivity.scratch_size(max_len))),
        head_params(static_cast<std::size_t>(sensitivity.params_per_head())),
        q(static_cast<std::size_t>(head_dim)),
        s(static_cast<std::size_t>(dim)),
        order(static_cast<std::size_t>(max_len)),
        scan(max_len, dim),
        mc(max_len, dim) {}
  int dim;
  std::vector<double> x;       // [L, dim]: the head's values or the attention input rows
  std::vector<double> x_norm;  // [L]: |x_k|
  std::vector<double> unit_c;  // [L, dim]: a_k x_k / |x_k| (P4)
  std::vector<float> pairwise;  // [L, L]: |x_k - x_m| (when a distance file needs d_max)
  std::vector<double> a;        // [n]: the row's weights
  std::vector<double> logits, direction, p0, p1, row_scratch, head_params;  // P5
  std::vector<double> q;  // [D]: the row's query
  std::vector<double> s;  // [dim]: P4's scratch
  std::vector<int> order;  // the row's keys by weight (top_order)
  TopSetScan scan;
  MonteCarloScratch mc;
};

}  // namespace sinklab::probes
