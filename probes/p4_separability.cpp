#include "probes/p4_separability.h"

#include <cmath>
#include <sstream>

#include "core/io/file_write.h"
#include "probes/figure_script.h"
#include "probes/head_means.h"
#include "probes/separability.h"
#include "probes/summary_numbers.h"

namespace sinklab::probes {
namespace {

bool first_separability_entry(const LengthPlan& plan, const NEntry& e) {
  for (const NEntry& x : plan.entries)
    if (x.separability) return &x == &e;
  return false;
}

// unit_c [n, dim] = a_k x_k / |x_k|, once per row (at its first separability entry).
void unit_vectors(const ProbeRow& row) {
  ProbeWorkspace& ws = row.ws;
  for (int k = 0; k < row.n; ++k) {
    const double x_norm = ws.x_norm[static_cast<std::size_t>(k)];
    const double scale = x_norm > 0 ? ws.a[static_cast<std::size_t>(k)] / x_norm : 0.0;
    for (int i = 0; i < row.dim; ++i)
      ws.unit_c[static_cast<std::size_t>(k) * row.dim + i] = scale * ws.x[static_cast<std::size_t>(k) * row.dim + i];
  }
}

void on_entry(const ProbeEntry& entry, ProbeCounters& counts) {
  if (!entry.e.separability) return;
  const ProbeRow& row = entry.row;
  if (first_separability_entry(entry.plan, entry.e)) unit_vectors(row);
  const Separability sep =
      separability(row.ws.unit_c.data(), row.n, row.dim, row.ws.order.data(), entry.e.N, row.ws.s.data());
  entry.sums.separability += sep.ratio;
  ++entry.sums.separability_rows;
  if (!(entry.e.N == 1 && sep.radius > 0)) return;  // r NaN or 0: nothing to check
  ++counts.checks_separability;
  if (sep.ratio != 1.0) {
    ++counts.violations_separability;
    row.log.record({"separability 1 at N = 1", row.layer, row.head, row.window, row.t, row.L, 1, sep.ratio, 1.0});
  }
}

void write_csv(const ProbeOutput& o) {
  const ProbeResults& r = o.r;
  std::ostringstream csv;
  csv << "layer,head,L,N,separability,rows\n";
  for (std::size_t e = 0; e < r.plans.back().entries.size(); ++e) {
    const NEntry& entry = r.plans.back().entries[e];
    if (!entry.separability) continue;
    for (const HeadMeans& h : head_means(r, static_cast<int>(r.plans.size()) - 1, static_cast<int>(e)))
      csv << h.layer << ',' << h.head << ',' << r.max_len << ',' << entry.N << ',' << num(h.separability) << ','
          << h.rows << '\n';
  }
  write_file_atomically(o.out / "separability.csv", csv.str());
}

ProbeSection write(const ProbeOutput& o) {
  write_csv(o);
  const std::vector<std::pair<int, double>> medians = separability_medians(o.r);
  std::vector<double> plateau;
  for (const auto& [n, v] : medians)
    if (n >= 16) plateau.push_back(v);
  const auto at = [&](int N) { return num(separability_median_at(medians, N)); };
  std::ostringstream claims, invariants;
  claims << "| P4 separability | falls to N ~ 16, plateau 0.70-0.85 | median over heads N=1: " << at(1)
         << ", N=4: " << at(4) << ", N=16: " << at(16) << ", mean of N >= 16: " << num(mean_of(plateau))
         << " | L = " << o.r.max_len << ", unit-normalized " << o.vectors() << " |\n";
  invariants << "| separability 1 at N = 1 (r > 0) | " << o.r.checks_separability << " | "
             << o.r.violations_separability << " |\n";
  const std::string figure =
      gnuplot_header(o.figures / "separability.png", "P4: N_s / N per head at L = " + std::to_string(o.r.max_len)) +
      "set xlabel 'N'\nset ylabel 'N_s / N (separable fraction)'\nset logscale x\nset yrange [0:1.05]\nplot " +
      o.csv("separability.csv") +
      " using 4:5 with points pt 7 ps 0.6 title 'heads', '' using 4:5 smooth unique with lines lw 2 "
      "title 'mean', 0.7 dt 2 title 'paper 0.70-0.85', 0.85 dt 2 notitle\n";
  return {{"separability.csv"}, {{"separability", figure}}, claims.str(), invariants.str()};
}

}  // namespace

std::vector<std::pair<int, double>> separability_medians(const ProbeResults& r) {
  std::vector<std::pair<int, double>> out;
  for (std::size_t e = 0; e < r.plans.back().entries.size(); ++e) {
    const NEntry& entry = r.plans.back().entries[e];
    if (!entry.separability) continue;
    std::vector<double> values;
    for (const HeadMeans& h : head_means(r, static_cast<int>(r.plans.size()) - 1, static_cast<int>(e)))
      values.push_back(h.separability);
    out.emplace_back(entry.N, median(values));
  }
  return out;
}

double separability_median_at(const std::vector<std::pair<int, double>>& medians, int N) {
  for (const auto& [n, v] : medians)
    if (n == N) return v;
  return NAN;
}

ProbeRegistration separability_probe() {
  return {"P4",
          "separability",
          "N_s / N: how much of the top-N set is separable, on unit-normalized vectors (separability.csv)",
          nullptr,
          nullptr,
          on_entry,
          write};
}

}  // namespace sinklab::probes
