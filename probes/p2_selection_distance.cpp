#include "probes/p2_selection_distance.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "core/io/file_write.h"
#include "probes/figure_script.h"
#include "probes/head_means.h"
#include "probes/line_fit.h"
#include "probes/seed_mix.h"
#include "probes/summary_numbers.h"

namespace sinklab::probes {
namespace {

void on_entry(const ProbeEntry& entry, ProbeCounters&) {
  const ProbeRow& row = entry.row;
  DistanceSums& acc = entry.sums;
  acc.d_true += entry.terms.d_true;
  acc.d_r2 += entry.terms.d_r2;
  acc.e_main += entry.bounds.main;
  acc.e_up += entry.bounds.upper;
  ++acc.rows;
  if (entry.e.distance_file) acc.d_max += entry.terms.d_max;
  if (!entry.e.monte_carlo || !row.sampled) return;
  const uint64_t seed =
      mix(mix(mix(mix(mix(row.settings.seed, 2), static_cast<uint64_t>(row.layer)), static_cast<uint64_t>(row.head)),
              static_cast<uint64_t>(row.window)),
          static_cast<uint64_t>(row.t) * 65536u + static_cast<uint64_t>(entry.e.N));
  acc.e_mc += expected_distance_mc(entry.scan.c(), row.n, row.dim, entry.e.N, row.settings.mc_samples, seed, row.ws.mc);
  ++acc.mc_rows;
}

const char* kHeader = "layer,head,L,N,d_true,d_r2,d_max,E_main,E_up,E_mc\n";

void line(std::ostringstream& o, const HeadMeans& h, int L, int N) {
  o << h.layer << ',' << h.head << ',' << L << ',' << N << ',' << num(h.d_true) << ',' << num(h.d_r2) << ','
    << num(h.d_max) << ',' << num(h.e_main) << ',' << num(h.e_up) << ',' << num(h.e_mc) << '\n';
}

int entry_of(const LengthPlan& p, int N) {
  for (std::size_t i = 0; i < p.entries.size(); ++i)
    if (p.entries[i].N == N) return static_cast<int>(i);
  return -1;
}

// What probes.md summarizes: the mean d_true over heads per L at N = 5, and the head means per --N at L max.
struct Distances {
  std::vector<double> fit_l, fit_d;
  std::vector<std::pair<int, std::vector<HeadMeans>>> at_max_by_n;
  double n_mean(int N, double (*field)(const HeadMeans&)) const {
    for (const auto& [n, m] : at_max_by_n)
      if (n == N) return heads_mean(m, field);
    return NAN;
  }
};

Distances write_csvs(const ProbeOutput& o) {
  const ProbeResults& r = o.r;
  std::ostringstream by_l, by_n;
  by_l << kHeader;
  by_n << kHeader;
  Distances d;
  for (std::size_t p = 0; p < r.plans.size(); ++p) {
    const int e = entry_of(r.plans[p], 5);
    if (e < 0) continue;
    const std::vector<HeadMeans> m = head_means(r, static_cast<int>(p), e);
    for (const HeadMeans& h : m) line(by_l, h, r.plans[p].L, 5);
    d.fit_l.push_back(r.plans[p].L);
    d.fit_d.push_back(heads_mean(m, [](const HeadMeans& h) { return h.d_true; }));
  }
  for (std::size_t e = 0; e < r.plans.back().entries.size(); ++e) {
    const NEntry& entry = r.plans.back().entries[e];
    if (std::find(o.s.n_values.begin(), o.s.n_values.end(), entry.N) == o.s.n_values.end()) continue;
    d.at_max_by_n.emplace_back(entry.N, head_means(r, static_cast<int>(r.plans.size()) - 1, static_cast<int>(e)));
    for (const HeadMeans& h : d.at_max_by_n.back().second) line(by_n, h, r.max_len, entry.N);
  }
  write_file_atomically(o.out / "distance_vs_L.csv", by_l.str());
  write_file_atomically(o.out / "distance_vs_N.csv", by_n.str());
  return d;
}

std::vector<std::pair<std::string, std::string>> figures(const ProbeOutput& o) {
  const std::string vectors = o.vectors();
  return {{"distance_vs_L",
           gnuplot_header(o.figures / "distance_vs_L.png", "P2: distance vs L at N = 5, " + vectors + " vectors") +
               "set xlabel 'L'\nset ylabel 'distance between selected and unselected tokens (mean over heads)'\nset "
               "logscale y\nplot " +
               o.csv("distance_vs_L.csv") +
               " using 3:5 smooth unique with linespoints title 'd_true', '' using 3:8 smooth unique with "
               "linespoints title 'E_main', '' using 3:9 smooth unique with linespoints title 'E_up', '' using "
               "3:7 smooth unique with linespoints title 'd_max'\n"},
          {"distance_vs_N",
           gnuplot_header(o.figures / "distance_vs_N.png", "P2: distance vs N at L = " + std::to_string(o.r.max_len)) +
               "set xlabel 'N'\nset ylabel 'distance between selected and unselected tokens (mean over heads)'\nset "
               "logscale xy\nplot " +
               o.csv("distance_vs_N.csv") +
               " using 4:5 smooth unique with linespoints title 'd_true', '' using 4:8 smooth unique with "
               "linespoints title 'E_main', '' using 4:10 smooth unique with linespoints title 'E_mc', '' using "
               "4:7 smooth unique with linespoints title 'd_max'\n"}};
}

std::string claims(const ProbeOutput& o, const Distances& d) {
  const int max_len = o.r.max_len;
  const std::string vectors = o.vectors();
  const LineFit fit = fit_line(d.fit_l, d.fit_d);
  const auto d_true_of = [](const HeadMeans& h) { return h.d_true; };
  const auto d_max_of = [](const HeadMeans& h) { return h.d_max; };
  std::ostringstream md;
  md << "| P2 distance vs L | ~linear in L | d_true (mean over heads) = " << num(fit.intercept) << " + "
     << num(fit.slope) << " L, R^2 " << num(fit.r2)
     << " (spec gate: R^2 >= 0.9) | N = 5, L = " << (d.fit_l.empty() ? 0 : d.fit_l.front()) << ".." << max_len << ", "
     << vectors << ", " << o.context.model_name << " |\n";
  md << "| P2 distance vs N | plateau past N = 20 | d_true N=20: " << num(d.n_mean(20, d_true_of))
     << ", N=64: " << num(d.n_mean(64, d_true_of)) << ", N=100: " << num(d.n_mean(100, d_true_of))
     << " | L = " << max_len << ", " << vectors << " |\n";
  md << "| P2 bound | tightens as N -> 100 | d_max/d_true N=5: " << num(d.n_mean(5, d_max_of) / d.n_mean(5, d_true_of))
     << ", N=20: " << num(d.n_mean(20, d_max_of) / d.n_mean(20, d_true_of)) << ", N=100: "
     << num(d.n_mean(100, d_max_of) / d.n_mean(100, d_true_of)) << " | L = " << max_len << ", " << vectors << " |\n";
  return md.str();
}

ProbeSection write(const ProbeOutput& o) {
  const Distances d = write_csvs(o);
  return {{"distance_vs_L.csv", "distance_vs_N.csv"}, figures(o), claims(o, d), ""};
}

}  // namespace

ProbeRegistration selection_distance_probe() {
  return {"P2",
          "distance",
          "d_true, d_r2 and d_max of the top-N set against a random selection's E (distance_vs_L/N.csv)",
          nullptr,
          nullptr,
          on_entry,
          write};
}

}  // namespace sinklab::probes
