#include "probes/probe_outputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "probes/ks_test.h"
#include "probes/probe_collector.h"
#include "probes/sensitivity_rows.h"
#include "probes/vanishing_bound.h"
#include "core/io/file_write.h"
#include "report/gnuplot_runner.h"

namespace sinklab::normlimits {
namespace {

namespace fs = std::filesystem;

std::string num(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

double median(std::vector<double> v) {
  std::erase_if(v, [](double x) { return std::isnan(x); });
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (const double x : v)
    if (!std::isnan(x)) {
      s += x;
      ++n;
    }
  return n ? s / n : NAN;
}

const char* vectors_name(VectorKind k) { return k == VectorKind::value ? "value" : "hidden"; }

int entry_of(const LengthPlan& p, int N) {
  for (std::size_t i = 0; i < p.entries.size(); ++i)
    if (p.entries[i].N == N) return static_cast<int>(i);
  return -1;
}

// The mean over heads of one column of head_means.
template <class Field>
double heads_mean(const std::vector<HeadMeans>& m, Field f) {
  std::vector<double> v;
  for (const HeadMeans& h : m) v.push_back(f(h));
  return mean_of(v);
}

const char* kDistanceHeader = "layer,head,L,N,d_true,d_r2,d_max,E_main,E_up,E_mc\n";

void distance_line(std::ostringstream& o, const HeadMeans& h, int L, int N) {
  o << h.layer << ',' << h.head << ',' << L << ',' << N << ',' << num(h.d_true) << ',' << num(h.d_r2) << ','
    << num(h.d_max) << ',' << num(h.e_main) << ',' << num(h.e_up) << ',' << num(h.e_mc) << '\n';
}

// Least-squares line y = a + b x and its R^2.
struct LineFit {
  double slope = NAN, intercept = NAN, r2 = NAN;
};
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  LineFit f;
  const std::size_t n = x.size();
  if (n < 2) return f;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0) return f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1.0;
  return f;
}

std::string gnuplot_header(const fs::path& png, const std::string& title) {
  return "set terminal pngcairo noenhanced size 900,600 font \",10\"\nset output '" + png.string() +
         "'\nset datafile separator ','\nset key top left\nset grid\nset title '" + title + "'\n";
}

}  // namespace

std::vector<HeadMeans> head_means(const ProbeResults& r, int plan, int entry) {
  std::vector<HeadMeans> out;
  for (int l = 0; l < r.layers; ++l)
    for (int h = 0; h < r.heads; ++h) {
      DistanceSums s;
      for (int w = 0; w < r.windows; ++w) {
        const DistanceSums& x = r.sums[static_cast<std::size_t>(plan)][r.sums_index(entry, l, h, w)];
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
      HeadMeans m;
      m.layer = l;
      m.head = h;
      m.rows = s.rows;
      const NEntry& e = r.plans[static_cast<std::size_t>(plan)].entries[static_cast<std::size_t>(entry)];
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
      out.push_back({plan.L, plan.entries[e].N, static_cast<int>(distances.size()), ks.statistic, ks.p_value, ks.exact});
    }
  }
  return out;
}

void write_probe_outputs(const ProbeResults& r, const ProbeSettings& s, const ProbeContext& context, const fs::path& out,
                         const std::string& gnuplot, std::ostream& log) {
  fs::create_directories(out / "figures");
  const int last = static_cast<int>(r.plans.size()) - 1;
  const int max_len = r.max_len;
  const std::string vectors = vectors_name(s.vectors);

  // P1: per head and n-bin [2^j, 2^(j+1)), medians of n max a, n min a and the bounds.
  std::ostringstream vanishing;
  vanishing << "layer,head,n_from,n_to,rows,median_n_max_a,median_n_min_a,median_lower_bound,median_upper_bound,violations,"
               "bound_applies\n";
  std::vector<double> last_bin_max;  // median n max a of the longest bin, per head
  for (int l = 0; l < r.layers; ++l)
    for (int h = 0; h < r.heads; ++h)
      for (int from = 1; from <= max_len; from *= 2) {
        const int to = std::min(2 * from - 1, max_len);
        std::vector<double> hi, lo, lower, upper;
        int violations = 0;
        for (int w = 0; w < r.windows; ++w)
          for (int n = from; n <= to; ++n) {
            const std::size_t i = r.row_index(l, h, w, n - 1);
            hi.push_back(r.n_max_weight[i]);
            lo.push_back(r.n_min_weight[i]);
            lower.push_back(r.lower[i]);
            upper.push_back(r.upper[i]);
            violations += r.vanishing_violated[i];
          }
        vanishing << l << ',' << h << ',' << from << ',' << to << ',' << hi.size() << ',' << num(median(hi)) << ','
                  << num(median(lo)) << ',' << num(median(lower)) << ',' << num(median(upper)) << ',' << violations << ','
                  << (context.rows.softmax ? "yes" : "not applicable") << '\n';
        if (2 * from > max_len) last_bin_max.push_back(median(hi));
      }
  write_file_atomically(out / "vanishing.csv", vanishing.str());

  // P2 over L at N = 5, and over N at L max.
  std::ostringstream by_l, by_n;
  by_l << kDistanceHeader;
  by_n << kDistanceHeader;
  std::vector<double> fit_l, fit_d;
  for (std::size_t p = 0; p < r.plans.size(); ++p) {
    const int e = entry_of(r.plans[p], 5);
    if (e < 0) continue;
    const std::vector<HeadMeans> m = head_means(r, static_cast<int>(p), e);
    for (const HeadMeans& h : m) distance_line(by_l, h, r.plans[p].L, 5);
    fit_l.push_back(r.plans[p].L);
    fit_d.push_back(heads_mean(m, [](const HeadMeans& h) { return h.d_true; }));
  }
  std::vector<std::pair<int, std::vector<HeadMeans>>> at_max_by_n;
  for (std::size_t e = 0; e < r.plans.back().entries.size(); ++e) {
    const NEntry& entry = r.plans.back().entries[e];
    if (std::find(s.n_values.begin(), s.n_values.end(), entry.N) == s.n_values.end()) continue;
    at_max_by_n.emplace_back(entry.N, head_means(r, last, static_cast<int>(e)));
    for (const HeadMeans& h : at_max_by_n.back().second) distance_line(by_n, h, max_len, entry.N);
  }
  write_file_atomically(out / "distance_vs_L.csv", by_l.str());
  write_file_atomically(out / "distance_vs_N.csv", by_n.str());

  // P3.
  const std::vector<CriticalRow> crit = critical_rows(r, s);
  std::ostringstream critical, critical_summary;
  critical << "L,N,ks_D,p_value,exact,heads,distance,expectation\n";
  critical_summary << "L,N_crit,N_crit_over_L,alpha\n";
  std::vector<std::pair<int, int>> n_crit;  // (L, N_crit or 0)
  for (const CriticalRow& c : crit) {
    critical << c.L << ',' << c.N << ',' << num(c.statistic) << ',' << num(c.p_value) << ',' << (c.exact ? "exact" : "asymptotic")
             << ',' << c.heads << ',' << (s.distance == DistanceKind::r1 ? "d_true" : "d_r2") << ','
             << (s.expectation == ExpectationKind::main ? "E_main" : "E_mc") << '\n';
    if (n_crit.empty() || n_crit.back().first != c.L) n_crit.emplace_back(c.L, 0);
    if (n_crit.back().second == 0 && c.p_value > s.ks_alpha) n_crit.back().second = c.N;
  }
  for (const auto& [L, N] : n_crit)
    critical_summary << L << ',' << (N ? std::to_string(N) : "") << ',' << (N ? num(static_cast<double>(N) / L) : "") << ','
                     << num(s.ks_alpha) << '\n';
  write_file_atomically(out / "critical_n.csv", critical.str());
  write_file_atomically(out / "critical_n_summary.csv", critical_summary.str());

  // P4.
  std::ostringstream sep;
  sep << "layer,head,L,N,separability,rows\n";
  std::vector<std::pair<int, double>> sep_median;  // N, median over heads
  for (std::size_t e = 0; e < r.plans.back().entries.size(); ++e) {
    const NEntry& entry = r.plans.back().entries[e];
    if (!entry.separability) continue;
    std::vector<double> values;
    for (const HeadMeans& h : head_means(r, last, static_cast<int>(e))) {
      sep << h.layer << ',' << h.head << ',' << max_len << ',' << entry.N << ',' << num(h.separability) << ',' << h.rows << '\n';
      values.push_back(h.separability);
    }
    sep_median.emplace_back(entry.N, median(values));
  }
  write_file_atomically(out / "separability.csv", sep.str());

  // P5: per head the row mean of g, then the max and median over heads.
  std::ostringstream grad;
  grad << "T,eps,g_max,g_median,bound_1_over_2T,reference_min_1_over_4T_sqrt2,sigma_l\n";
  const double sigma_l = median(std::vector<double>(r.logit_std.begin(), r.logit_std.end()));
  const std::size_t head_slots = r.gradient_rows.size();
  std::vector<std::vector<double>> g_max(s.temperatures.size(), std::vector<double>(s.eps.size(), NAN));
  for (std::size_t ti = 0; ti < s.temperatures.size(); ++ti)
    for (std::size_t ei = 0; ei < s.eps.size(); ++ei) {
      std::vector<double> per_head;
      for (int l = 0; l < r.layers; ++l)
        for (int h = 0; h < r.heads; ++h) {
          double sum = 0;
          int64_t rows = 0;
          for (int w = 0; w < r.windows; ++w) {
            const std::size_t slot = (static_cast<std::size_t>(l) * r.heads + h) * r.windows + w;
            sum += r.gradient_sums[(ti * s.eps.size() + ei) * head_slots + slot];
            rows += r.gradient_rows[slot];
          }
          if (rows > 0) per_head.push_back(sum / rows);
        }
      const double T = s.temperatures[ti];
      double top = NAN;
      for (const double g : per_head) top = std::isnan(top) ? g : std::max(top, g);
      g_max[ti][ei] = top;
      grad << num(T) << ',' << num(s.eps[ei]) << ',' << num(top) << ',' << num(median(per_head)) << ',' << num(1 / (2 * T)) << ','
           << num(std::min(1 / (4 * T), std::sqrt(2.0))) << ',' << num(sigma_l) << '\n';
    }
  write_file_atomically(out / "gradient.csv", grad.str());

  // Figures: one gnuplot script per probe (means over heads via `smooth unique`).
  const fs::path fig = fs::absolute(out / "figures");
  const fs::path dir = fs::absolute(out);
  const auto csv = [&](const char* name) { return "'" + (dir / name).string() + "'"; };
  std::vector<std::pair<std::string, std::string>> scripts{
      {"vanishing", gnuplot_header(fig / "vanishing.png", "P1: median n max a and n min a per n-bin (" + context.model_name + ")") +
                        "set logscale xy\nset xlabel 'n (visible keys, bin start)'\nplot " + csv("vanishing.csv") +
                        " using 3:6 smooth unique with linespoints title 'n max a (mean over heads)', " + csv("vanishing.csv") +
                        " using 3:7 smooth unique with linespoints title 'n min a'\n"},
      {"distance_vs_L", gnuplot_header(fig / "distance_vs_L.png", "P2: distance vs L at N = 5, " + vectors + " vectors") +
                            "set xlabel 'L'\nset logscale y\nplot " + csv("distance_vs_L.csv") +
                            " using 3:5 smooth unique with linespoints title 'd_true', '' using 3:8 smooth unique with "
                            "linespoints title 'E_main', '' using 3:9 smooth unique with linespoints title 'E_up', '' using "
                            "3:7 smooth unique with linespoints title 'd_max'\n"},
      {"distance_vs_N", gnuplot_header(fig / "distance_vs_N.png", "P2: distance vs N at L = " + std::to_string(max_len)) +
                            "set xlabel 'N'\nset logscale xy\nplot " + csv("distance_vs_N.csv") +
                            " using 4:5 smooth unique with linespoints title 'd_true', '' using 4:8 smooth unique with "
                            "linespoints title 'E_main', '' using 4:10 smooth unique with linespoints title 'E_mc', '' using "
                            "4:7 smooth unique with linespoints title 'd_max'\n"},
      {"critical_n", gnuplot_header(fig / "critical_n.png", "P3: critical N vs L (alpha " + num(s.ks_alpha) + ")") +
                         "set xlabel 'L'\nset ylabel 'N_crit'\nplot " + csv("critical_n_summary.csv") +
                         " using 1:2 with linespoints title 'measured', 0.06*x title 'paper: 0.06 L'\n"},
      {"separability", gnuplot_header(fig / "separability.png", "P4: N_s / N per head at L = " + std::to_string(max_len)) +
                           "set xlabel 'N'\nset logscale x\nset yrange [0:1.05]\nplot " + csv("separability.csv") +
                           " using 4:5 with points pt 7 ps 0.6 title 'heads', '' using 4:5 smooth unique with lines lw 2 "
                           "title 'mean', 0.7 dt 2 title 'paper 0.70-0.85', 0.85 dt 2 notitle\n"},
      {"gradient", gnuplot_header(fig / "gradient.png", "P5: max over heads of the mean g vs T") +
                       "set logscale xy\nset xlabel 'T'\nset key top right\nplot for [e in '" +
                       [&] {
                         std::string list;
                         for (const double e : s.eps) list += (list.empty() ? "" : " ") + num(e);
                         return list;
                       }() +
                       "'] " + csv("gradient.csv") +
                       " using 1:($2 == e ? $3 : 1/0) with linespoints title 'eps '.e, '' using 1:5 with lines dt 2 title "
                       "'1/(2T)', '' using 1:6 with lines dt 3 title 'min(1/(4T), sqrt 2)'\n"}};
  GnuplotRunner runner(gnuplot, log);
  for (const auto& [name, text] : scripts) {
    const fs::path script = out / "figures" / (name + ".gp");
    write_file_atomically(script, text);
    runner.render(script);
  }

  // probes.md: every claim beside ours.
  const LineFit fit = fit_line(fit_l, fit_d);
  const auto n_mean = [&](int N, auto field) {
    for (const auto& [n, m] : at_max_by_n)
      if (n == N) return heads_mean(m, field);
    return static_cast<double>(NAN);
  };
  const auto d_true_of = [](const HeadMeans& h) { return h.d_true; };
  const auto d_max_of = [](const HeadMeans& h) { return h.d_max; };
  std::ostringstream md;
  md << "# Normalization-limit probes: " << context.model_name << "\n\n";
  md << "Model `" << context.model_name << "`, normalizer `" << context.rows.config.name << "`, " << r.layers << " layers x "
     << r.heads << " heads, vectors `" << vectors << "`, " << r.windows << " windows, L in {";
  for (std::size_t p = 0; p < r.plans.size(); ++p) md << (p ? ", " : "") << r.plans[p].L;
  md << "}, KS alpha " << num(s.ks_alpha) << ", distance " << (s.distance == DistanceKind::r1 ? "r1 (d_true)" : "r2 (d_r2)")
     << ", expectation " << (s.expectation == ExpectationKind::main ? "E_main" : "E_mc") << ", E_mc from " << s.mc_samples
     << " subsets on one row in " << sample_stride(max_len) << " (t + 1 divisible by it; at L = " << max_len
     << "), P5 on the same rows. Wall time " << num(context.seconds) << " s.\n\n";
  if (!context.command.empty()) md << "Command: `" << context.command << "`\n\n";
  md << "## The paper's claims (GPT-2 124M, 12 x 12 heads, War and Peace) beside ours\n\n";
  md << "| probe | paper | ours | at |\n|---|---|---|---|\n";
  double n_max_median = median(last_bin_max);
  md << "| P1 vanishing | C1/L <= a <= C2/L | " << r.violations_vanishing << " violations in " << r.checks_vanishing
     << " rows" << (context.rows.softmax ? "" : " (not applicable: not plain softmax)") << "; median n max a "
     << num(n_max_median) << " in the last n-bin | L = " << max_len << ", T = T_model, " << context.model_name << " |\n";
  md << "| P2 distance vs L | ~linear in L | d_true (mean over heads) = " << num(fit.intercept) << " + " << num(fit.slope)
     << " L, R^2 " << num(fit.r2) << " (spec gate: R^2 >= 0.9) | N = 5, L = " << (fit_l.empty() ? 0 : fit_l.front()) << ".."
     << max_len << ", " << vectors << ", " << context.model_name << " |\n";
  md << "| P2 distance vs N | plateau past N = 20 | d_true N=20: " << num(n_mean(20, d_true_of)) << ", N=64: "
     << num(n_mean(64, d_true_of)) << ", N=100: " << num(n_mean(100, d_true_of)) << " | L = " << max_len << ", " << vectors
     << " |\n";
  md << "| P2 bound | tightens as N -> 100 | d_max/d_true N=5: " << num(n_mean(5, d_max_of) / n_mean(5, d_true_of))
     << ", N=20: " << num(n_mean(20, d_max_of) / n_mean(20, d_true_of)) << ", N=100: "
     << num(n_mean(100, d_max_of) / n_mean(100, d_true_of)) << " | L = " << max_len << ", " << vectors << " |\n";
  md << "| P3 critical N | ~0.06 L (alpha 0.01) | ";
  for (std::size_t i = 0; i < n_crit.size(); ++i)
    md << (i ? ", " : "") << "L " << n_crit[i].first << ": "
       << (n_crit[i].second ? std::to_string(n_crit[i].second) + " (" + num(static_cast<double>(n_crit[i].second) / n_crit[i].first) + " L)"
                            : std::string("none up to L/4"));
  md << " | " << r.layers * r.heads << " heads, alpha " << num(s.ks_alpha) << ", " << vectors << " |\n";
  const auto sep_at = [&](int N) {
    for (const auto& [n, v] : sep_median)
      if (n == N) return v;
    return static_cast<double>(NAN);
  };
  std::vector<double> plateau;
  for (const auto& [n, v] : sep_median)
    if (n >= 16) plateau.push_back(v);
  md << "| P4 separability | falls to N ~ 16, plateau 0.70-0.85 | median over heads N=1: " << num(sep_at(1)) << ", N=4: "
     << num(sep_at(4)) << ", N=16: " << num(sep_at(16)) << ", mean of N >= 16: " << num(mean_of(plateau))
     << " | L = " << max_len << ", unit-normalized " << vectors << " |\n";
  // P5: the log-log slope of g_max below T = 0.1 (smallest eps) and the drop from T = 0.1 to T = 1.
  std::vector<double> lx, ly;
  double g01 = NAN, g1 = NAN;
  for (std::size_t ti = 0; ti < s.temperatures.size(); ++ti) {
    const double T = s.temperatures[ti], g = g_max[ti][0];
    if (T < 0.1 && g > 0) {
      lx.push_back(std::log10(T));
      ly.push_back(std::log10(g));
    }
    if (std::isnan(g01) && T >= 0.1) g01 = g;
    if (std::isnan(g1) && T >= 1.0) g1 = g;
  }
  const LineFit slope = fit_line(lx, ly);
  const SensitivityRows p5_rows(context.rows);
  md << "| P5 gradient | ~1/T below T = 0.1; 2 decades down at T >= 1 | log-log slope of max g below T = 0.1: "
     << num(slope.slope) << "; g(T~0.1)/g(T~1) = " << num(g01 / g1) << "; sigma_l = " << num(sigma_l) << " | eps = "
     << num(s.eps.front()) << ", raw logits q.k, " << p5_rows.name() << " rows, L = " << max_len << " |\n";
  const double p16 = sep_at(16);
  int heads_99 = 0;
  if (p16 > 0 && p16 < 1) heads_99 = static_cast<int>(std::ceil(std::log(0.01) / std::log(1 - p16)));
  if (p16 >= 1) heads_99 = 1;
  md << "| P6 coverage | p 0.8, H 3 -> 0.992 | p = " << num(p16) << " -> H = " << (heads_99 ? std::to_string(heads_99) : "n/a")
     << " heads for 99%; 3 heads cover " << num(1 - std::pow(1 - p16, 3)) << " | N = 16, L = " << max_len << " |\n\n";
  md << "## Invariants (checked on every row)\n\n| invariant | checked | violations |\n|---|---|---|\n";
  md << "| d_true <= d_max (rows summing to 1, distance-file N) | " << r.checks_d_max << " | " << r.violations_d_max << " |\n";
  md << "| P1 e^{-2 Delta/T}/n <= a_k <= e^{2 Delta/T}/n | "
     << (context.rows.softmax ? std::to_string(r.checks_vanishing) : std::string("not applicable (") + context.rows.config.name + ")")
     << " | " << r.violations_vanishing << " |\n";
  md << "| (P1 rows whose lower bound e^{-2 Delta/T}/n < " << num(kSmallestCheckedWeight)
     << ", below float32: upper bound only) | " << r.vanishing_lower_unchecked << " | - |\n";
  md << "| separability 1 at N = 1 (r > 0) | " << r.checks_separability << " | " << r.violations_separability << " |\n";
  md << "| " << p5_rows.bound_text() << " | " << r.checks_gradient << " | " << r.violations_gradient << " |\n\n";
  if (!r.first_violations.empty()) {
    md << "First violations:\n\n";
    for (const ViolationRecord& v : r.first_violations)
      md << "- " << v.what << ": layer " << v.layer << ", head " << v.head << ", window " << v.window << ", row " << v.row
         << ", L " << v.L << ", N " << v.N << ": " << num(v.value) << " vs bound " << num(v.bound) << "\n";
    md << "\n";
  }
  md << "Files: vanishing.csv, distance_vs_L.csv, distance_vs_N.csv, critical_n.csv, critical_n_summary.csv, "
        "separability.csv, gradient.csv, figures/*.gp"
     << (runner.available() ? " and their PNGs" : " (gnuplot not found: render with `gnuplot figures/*.gp`)") << ".\n";
  write_file_atomically(out / "probes.md", md.str());
}

}  // namespace sinklab::normlimits
