#include "probes/p5_temperature_gradient.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/io/file_write.h"
#include "core/rng.h"
#include "probes/figure_script.h"
#include "probes/line_fit.h"
#include "probes/seed_mix.h"
#include "probes/summary_numbers.h"

namespace sinklab::probes {
namespace {

std::size_t head_slot(const ProbeResults& r, int layer, int head, int window) {
  return (static_cast<std::size_t>(layer) * r.heads + head) * r.windows + window;
}

void setup(ProbeResults& r, const ProbeSettings& s) {
  const std::size_t slots = static_cast<std::size_t>(r.layers) * r.heads * r.windows;
  r.logit_std.assign(slots * r.max_len, NAN);
  r.gradient_sums.assign(s.temperatures.size() * s.eps.size() * slots, 0.0);
  r.gradient_rows.assign(slots, 0);
}

// ws.logits [n] = q . k_k; the row's logit standard deviation goes to results.logit_std.
void raw_logits(const ProbeRow& row) {
  ProbeWorkspace& ws = row.ws;
  const int n = row.n, D = row.D;
  double mean = 0.0;
  for (int k = 0; k < n; ++k) {
    double l = 0.0;
    for (int i = 0; i < D; ++i) l += ws.q[static_cast<std::size_t>(i)] * row.keys[static_cast<int64_t>(k) * D + i];
    ws.logits[static_cast<std::size_t>(k)] = l;
    mean += l;
  }
  mean /= n;
  double var = 0.0;
  for (int k = 0; k < n; ++k)
    var += (ws.logits[static_cast<std::size_t>(k)] - mean) * (ws.logits[static_cast<std::size_t>(k)] - mean);
  row.results.logit_std[row.index] = static_cast<float>(std::sqrt(var / n));
}

// ws.direction [n]: a unit vector seeded by (seed, layer, head, window, t).
void random_direction(const ProbeRow& row) {
  ProbeWorkspace& ws = row.ws;
  Rng rng(
      mix(mix(mix(mix(mix(row.settings.seed, 5), static_cast<uint64_t>(row.layer)), static_cast<uint64_t>(row.head)),
              static_cast<uint64_t>(row.window)),
          static_cast<uint64_t>(row.t)));
  double v_norm = 0.0;
  for (int k = 0; k < row.n; ++k) {
    ws.direction[static_cast<std::size_t>(k)] = rng.normal();
    v_norm += ws.direction[static_cast<std::size_t>(k)] * ws.direction[static_cast<std::size_t>(k)];
  }
  v_norm = std::sqrt(v_norm);
  for (int k = 0; k < row.n; ++k) ws.direction[static_cast<std::size_t>(k)] /= v_norm;
}

void on_row(const ProbeRow& row, ProbeCounters& counts) {
  if (!row.at_max || row.n < 2 || !row.sampled) return;
  raw_logits(row);
  random_direction(row);
  ProbeWorkspace& ws = row.ws;
  ProbeResults& r = row.results;
  const SensitivityRows& map = row.sensitivity;
  const std::size_t E = row.settings.eps.size(), slot = head_slot(r, row.layer, row.head, row.window);
  for (std::size_t ti = 0; ti < row.settings.temperatures.size(); ++ti) {
    const double T = row.settings.temperatures[ti];
    map.apply(ws.logits.data(), nullptr, 0.0, row.n, row.L, T, row.params, ws.p0.data(), ws.row_scratch.data());
    for (std::size_t ei = 0; ei < E; ++ei) {
      const double eps = row.settings.eps[ei];
      const double g = row_sensitivity(map, ws.logits.data(), ws.direction.data(), ws.p0.data(), row.n, row.L, T, eps,
                                       row.params, ws.p1.data(), ws.row_scratch.data());
      r.gradient_sums[(ti * E + ei) * r.gradient_rows.size() + slot] += g;
      ++counts.checks_gradient;
      const double bound = map.bound(row.n, T, eps, row.params);
      if (g > bound * (1.0 + 1e-9) + 1e-12 / eps) {
        ++counts.violations_gradient;
        row.log.record({map.bound_text(), row.layer, row.head, row.window, row.t, row.L, 0, g, bound});
      }
    }
  }
  ++r.gradient_rows[slot];
}

// The row mean of g per head at (T, eps) (heads without rows left out).
std::vector<double> head_gradients(const ProbeResults& r, std::size_t sums_offset) {
  std::vector<double> per_head;
  for (int l = 0; l < r.layers; ++l)
    for (int h = 0; h < r.heads; ++h) {
      double sum = 0;
      int64_t rows = 0;
      for (int w = 0; w < r.windows; ++w) {
        sum += r.gradient_sums[sums_offset + head_slot(r, l, h, w)];
        rows += r.gradient_rows[head_slot(r, l, h, w)];
      }
      if (rows > 0) per_head.push_back(sum / rows);
    }
  return per_head;
}

// gradient.csv: per (T, eps) the max and median over heads. Returns g_max [T][eps].
std::vector<std::vector<double>> write_csv(const ProbeOutput& o, double sigma_l) {
  const ProbeSettings& s = o.s;
  std::ostringstream csv;
  csv << "T,eps,g_max,g_median,bound_1_over_2T,reference_min_1_over_4T_sqrt2,sigma_l\n";
  std::vector<std::vector<double>> g_max(s.temperatures.size(), std::vector<double>(s.eps.size(), NAN));
  for (std::size_t ti = 0; ti < s.temperatures.size(); ++ti)
    for (std::size_t ei = 0; ei < s.eps.size(); ++ei) {
      const std::vector<double> per_head = head_gradients(o.r, (ti * s.eps.size() + ei) * o.r.gradient_rows.size());
      const double T = s.temperatures[ti];
      double top = NAN;
      for (const double g : per_head) top = std::isnan(top) ? g : std::max(top, g);
      g_max[ti][ei] = top;
      csv << num(T) << ',' << num(s.eps[ei]) << ',' << num(top) << ',' << num(median(per_head)) << ','
          << num(1 / (2 * T)) << ',' << num(std::min(1 / (4 * T), std::sqrt(2.0))) << ',' << num(sigma_l) << '\n';
    }
  write_file_atomically(o.out / "gradient.csv", csv.str());
  return g_max;
}

std::string figure(const ProbeOutput& o) {
  std::string eps_list;
  for (const double e : o.s.eps) eps_list += (eps_list.empty() ? "" : " ") + num(e);
  return gnuplot_header(o.figures / "gradient.png", "P5: max over heads of the mean g vs T") +
         "set logscale xy\nset xlabel 'T'\nset ylabel 'g = |N(l + eps v) - N(l)| / eps (max over heads of the "
         "mean)'\nset key top right\nplot for [e in '" +
         eps_list + "'] " + o.csv("gradient.csv") +
         " using 1:($2 == e ? $3 : 1/0) with linespoints title 'eps '.e, '' using 1:5 with lines dt 2 title "
         "'1/(2T)', '' using 1:6 with lines dt 3 title 'min(1/(4T), sqrt 2)'\n";
}

// The log-log slope of g_max below T = 0.1 (smallest eps) and the drop from T = 0.1 to T = 1.
std::string claims(const ProbeOutput& o, const std::vector<std::vector<double>>& g_max, double sigma_l) {
  std::vector<double> lx, ly;
  double g01 = NAN, g1 = NAN;
  for (std::size_t ti = 0; ti < o.s.temperatures.size(); ++ti) {
    const double T = o.s.temperatures[ti], g = g_max[ti][0];
    if (T < 0.1 && g > 0) {
      lx.push_back(std::log10(T));
      ly.push_back(std::log10(g));
    }
    if (std::isnan(g01) && T >= 0.1) g01 = g;
    if (std::isnan(g1) && T >= 1.0) g1 = g;
  }
  const LineFit slope = fit_line(lx, ly);
  const SensitivityRows rows(o.context.rows);
  std::ostringstream md;
  md << "| P5 gradient | ~1/T below T = 0.1; 2 decades down at T >= 1 | log-log slope of max g below T = 0.1: "
     << num(slope.slope) << "; g(T~0.1)/g(T~1) = " << num(g01 / g1) << "; sigma_l = " << num(sigma_l) << " | eps = "
     << num(o.s.eps.front()) << ", raw logits q.k, " << rows.name() << " rows, L = " << o.r.max_len << " |\n";
  return md.str();
}

ProbeSection write(const ProbeOutput& o) {
  const double sigma_l = median(std::vector<double>(o.r.logit_std.begin(), o.r.logit_std.end()));
  const std::vector<std::vector<double>> g_max = write_csv(o, sigma_l);
  const SensitivityRows rows(o.context.rows);
  std::string invariants = "| " + rows.bound_text() + " | " + std::to_string(o.r.checks_gradient) + " | " +
                           std::to_string(o.r.violations_gradient) + " |\n";
  return {{"gradient.csv"}, {{"gradient", figure(o)}}, claims(o, g_max, sigma_l), invariants};
}

}  // namespace

ProbeRegistration temperature_gradient_probe() {
  return {"P5",
          "gradient",
          "g = |N((l + eps v)/T) - N(l/T)| / eps of the model's row map vs the temperature T (gradient.csv)",
          setup,
          on_row,
          nullptr,
          write};
}

}  // namespace sinklab::probes
