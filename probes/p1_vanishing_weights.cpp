#include "probes/p1_vanishing_weights.h"

#include <algorithm>
#include <sstream>

#include "core/io/file_write.h"
#include "probes/figure_script.h"
#include "probes/summary_numbers.h"
#include "probes/vanishing_bound.h"

namespace sinklab::probes {
namespace {

void setup(ProbeResults& r, const ProbeSettings&) {
  const std::size_t rows_total = static_cast<std::size_t>(r.layers) * r.heads * r.windows * r.max_len;
  r.n_max_weight.assign(rows_total, NAN);
  r.n_min_weight.assign(rows_total, NAN);
  r.lower.assign(rows_total, NAN);
  r.upper.assign(rows_total, NAN);
  r.vanishing_violated.assign(rows_total, 0);
}

void on_row(const ProbeRow& row, ProbeCounters& counts) {
  if (!row.at_max) return;
  ProbeResults& r = row.results;
  const std::size_t ri = row.index;
  const VanishingRow v = vanishing_row(row.weights, row.n, row.q_norm, row.max_key_norm, row.t_model);
  r.n_max_weight[ri] = static_cast<float>(v.n_max_weight);
  r.n_min_weight[ri] = static_cast<float>(v.n_min_weight);
  r.lower[ri] = static_cast<float>(v.lower);
  r.upper[ri] = static_cast<float>(v.upper);
  if (!row.rows.softmax) return;  // the bound is softmax's
  ++counts.checks_vanishing;
  if (!v.lower_checked) ++counts.vanishing_lower_unchecked;
  if (!v.violated) return;
  ++counts.violations_vanishing;
  r.vanishing_violated[ri] = 1;
  if (v.upper_violated)
    row.log.record({"P1 upper bound (n max a <= e^{2 Delta/T})", row.layer, row.head, row.window, row.t, row.L, 0,
                    v.n_max_weight, v.upper});
  else
    row.log.record({"P1 lower bound (n min a >= e^{-2 Delta/T})", row.layer, row.head, row.window, row.t, row.L, 0,
                    v.n_min_weight, v.lower});
}

// Per head and n-bin [2^j, 2^(j+1)): medians of n max a, n min a and the bounds. Returns the median
// n max a of each head's last bin.
std::vector<double> write_csv(const ProbeOutput& o) {
  const ProbeResults& r = o.r;
  std::ostringstream csv;
  csv << "layer,head,n_from,n_to,rows,median_n_max_a,median_n_min_a,median_lower_bound,median_upper_bound,violations,"
         "bound_applies\n";
  std::vector<double> last_bin_max;
  for (int l = 0; l < r.layers; ++l)
    for (int h = 0; h < r.heads; ++h)
      for (int from = 1; from <= r.max_len; from *= 2) {
        const int to = std::min(2 * from - 1, r.max_len);
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
        csv << l << ',' << h << ',' << from << ',' << to << ',' << hi.size() << ',' << num(median(hi)) << ','
            << num(median(lo)) << ',' << num(median(lower)) << ',' << num(median(upper)) << ',' << violations << ','
            << (o.context.rows.softmax ? "yes" : "not applicable") << '\n';
        if (2 * from > r.max_len) last_bin_max.push_back(median(hi));
      }
  write_file_atomically(o.out / "vanishing.csv", csv.str());
  return last_bin_max;
}

ProbeSection write(const ProbeOutput& o) {
  const ProbeResults& r = o.r;
  const std::vector<double> last_bin_max = write_csv(o);
  ProbeSection section;
  section.files = {"vanishing.csv"};
  section.figures = {
      {"vanishing", gnuplot_header(o.figures / "vanishing.png",
                                   "P1: median n max a and n min a per n-bin (" + o.context.model_name + ")") +
                        "set logscale xy\nset xlabel 'n (visible keys, bin start)'\nset ylabel 'n x attention weight "
                        "(median per bin)'\nplot " +
                        o.csv("vanishing.csv") +
                        " using 3:6 smooth unique with linespoints title 'n max a (mean over heads)', " +
                        o.csv("vanishing.csv") + " using 3:7 smooth unique with linespoints title 'n min a'\n"}};
  std::ostringstream claims, invariants;
  claims << "| P1 vanishing | C1/L <= a <= C2/L | " << r.violations_vanishing << " violations in " << r.checks_vanishing
         << " rows" << (o.context.rows.softmax ? "" : " (not applicable: not plain softmax)") << "; median n max a "
         << num(median(last_bin_max)) << " in the last n-bin | L = " << r.max_len << ", T = T_model, "
         << o.context.model_name << " |\n";
  invariants << "| P1 e^{-2 Delta/T}/n <= a_k <= e^{2 Delta/T}/n | "
             << (o.context.rows.softmax ? std::to_string(r.checks_vanishing)
                                        : std::string("not applicable (") + o.context.rows.config.name + ")")
             << " | " << r.violations_vanishing << " |\n";
  invariants << "| (P1 rows whose lower bound e^{-2 Delta/T}/n < " << num(kSmallestCheckedWeight)
             << ", below float32: upper bound only) | " << r.vanishing_lower_unchecked << " | - |\n";
  section.claims = claims.str();
  section.invariants = invariants.str();
  return section;
}

}  // namespace

ProbeRegistration vanishing_weights_probe() {
  return {"P1", "vanishing", "n max a and n min a per row against softmax's bounds e^{+-2 Delta/T}/n (vanishing.csv)",
          setup, on_row, nullptr, write};
}

}  // namespace sinklab::probes
