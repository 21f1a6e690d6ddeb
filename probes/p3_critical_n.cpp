#include "probes/p3_critical_n.h"

#include <sstream>
#include <utility>

#include "core/io/file_write.h"
#include "probes/figure_script.h"
#include "probes/head_means.h"
#include "probes/ks_test.h"
#include "probes/summary_numbers.h"

namespace sinklab::probes {
namespace {

// (L, N_crit or 0) per length, from the rows written to critical_n.csv.
std::vector<std::pair<int, int>> write_csvs(const ProbeOutput& o) {
  const ProbeSettings& s = o.s;
  std::ostringstream critical, summary;
  critical << "L,N,ks_D,p_value,exact,heads,distance,expectation\n";
  summary << "L,N_crit,N_crit_over_L,alpha\n";
  std::vector<std::pair<int, int>> n_crit;
  for (const CriticalRow& c : critical_rows(o.r, s)) {
    critical << c.L << ',' << c.N << ',' << num(c.statistic) << ',' << num(c.p_value) << ','
             << (c.exact ? "exact" : "asymptotic") << ',' << c.heads << ','
             << (s.distance == DistanceKind::r1 ? "d_true" : "d_r2") << ','
             << (s.expectation == ExpectationKind::main ? "E_main" : "E_mc") << '\n';
    if (n_crit.empty() || n_crit.back().first != c.L) n_crit.emplace_back(c.L, 0);
    if (n_crit.back().second == 0 && c.p_value > s.ks_alpha) n_crit.back().second = c.N;
  }
  for (const auto& [L, N] : n_crit)
    summary << L << ',' << (N ? std::to_string(N) : "") << ',' << (N ? num(static_cast<double>(N) / L) : "") << ','
            << num(s.ks_alpha) << '\n';
  write_file_atomically(o.out / "critical_n.csv", critical.str());
  write_file_atomically(o.out / "critical_n_summary.csv", summary.str());
  return n_crit;
}

std::string claims(const ProbeOutput& o, const std::vector<std::pair<int, int>>& n_crit) {
  std::ostringstream md;
  md << "| P3 critical N | ~0.06 L (alpha 0.01) | ";
  for (std::size_t i = 0; i < n_crit.size(); ++i)
    md << (i ? ", " : "") << "L " << n_crit[i].first << ": "
       << (n_crit[i].second ? std::to_string(n_crit[i].second) + " (" +
                                  num(static_cast<double>(n_crit[i].second) / n_crit[i].first) + " L)"
                            : std::string("none up to L/4"));
  md << " | " << o.r.layers * o.r.heads << " heads, alpha " << num(o.s.ks_alpha) << ", " << o.vectors() << " |\n";
  return md.str();
}

ProbeSection write(const ProbeOutput& o) {
  const std::vector<std::pair<int, int>> n_crit = write_csvs(o);
  std::string figure =
      gnuplot_header(o.figures / "critical_n.png", "P3: critical N vs L (alpha " + num(o.s.ks_alpha) + ")") +
      "set xlabel 'L'\nset ylabel 'N_crit'\nplot " + o.csv("critical_n_summary.csv") +
      " using 1:2 with linespoints title 'measured', 0.06*x title 'paper: 0.06 L'\n";
  return {{"critical_n.csv", "critical_n_summary.csv"}, {{"critical_n", figure}}, claims(o, n_crit), ""};
}

}  // namespace

std::vector<CriticalRow> critical_rows(const ProbeResults& r, const ProbeSettings& s) {
  std::vector<CriticalRow> out;
  for (std::size_t p = 0; p < r.plans.size(); ++p) {
    const LengthPlan& plan = r.plans[p];
    for (std::size_t e = 0; e < plan.entries.size(); ++e) {
      if (!plan.entries[e].critical) continue;
      std::vector<double> distances, expectations;
      for (const HeadMeans& h : head_means(r, static_cast<int>(p), static_cast<int>(e))) {
        const double d = s.distance == DistanceKind::r1 ? h.d_true : h.d_r2;
        const double x = s.expectation == ExpectationKind::main ? h.e_main : h.e_mc;
        if (std::isnan(d) || std::isnan(x)) continue;
        distances.push_back(d);
        expectations.push_back(x);
      }
      if (distances.empty()) continue;
      const KsResult ks = ks_two_sample(distances, expectations);
      out.push_back(
          {plan.L, plan.entries[e].N, static_cast<int>(distances.size()), ks.statistic, ks.p_value, ks.exact});
    }
  }
  return out;
}

ProbeRegistration critical_n_probe() {
  return {"P3",
          "critical_n",
          "the first N whose head means of the distance pass a KS test against random selection (critical_n.csv)",
          nullptr,
          nullptr,
          nullptr,
          write};
}

}  // namespace sinklab::probes
