#include "probes/head_means.h"

namespace sinklab::probes {
namespace {

DistanceSums windows_sum(const ProbeResults& r, int plan, int entry, int layer, int head) {
  DistanceSums s;
  for (int w = 0; w < r.windows; ++w) {
    const DistanceSums& x = r.sums[static_cast<std::size_t>(plan)][r.sums_index(entry, layer, head, w)];
    s.d_true += x.d_true;
    s.d_r2 += x.d_r2;
    s.d_max += x.d_max;
    s.e_main += x.e_main;
    s.e_up += x.e_up;
    s.e_mc += x.e_mc;
    s.separability += x.separability;
    s.rows += x.rows;
    s.mc_rows += x.mc_rows;
    s.separability_rows += x.separability_rows;
  }
  return s;
}

}  // namespace

std::vector<HeadMeans> head_means(const ProbeResults& r, int plan, int entry) {
  std::vector<HeadMeans> out;
  const NEntry& e = r.plans[static_cast<std::size_t>(plan)].entries[static_cast<std::size_t>(entry)];
  for (int l = 0; l < r.layers; ++l)
    for (int h = 0; h < r.heads; ++h) {
      const DistanceSums s = windows_sum(r, plan, entry, l, h);
      HeadMeans m;
      m.layer = l;
      m.head = h;
      m.rows = s.rows;
      if (s.rows > 0) {
        m.d_true = s.d_true / s.rows;
        m.d_r2 = s.d_r2 / s.rows;
        m.e_main = s.e_main / s.rows;
        m.e_up = s.e_up / s.rows;
        if (e.distance_file) m.d_max = s.d_max / s.rows;
      }
      if (s.mc_rows > 0) m.e_mc = s.e_mc / s.mc_rows;
      if (s.separability_rows > 0) m.separability = s.separability / s.separability_rows;
      out.push_back(m);
    }
  return out;
}

}  // namespace sinklab::probes
