#include "probes/p7_first_key_weight.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/io/file_write.h"
#include "probes/figure_script.h"
#include "probes/summary_numbers.h"

namespace sinklab::probes {
namespace {

// Its own per-row values in ProbeResults::own, [layer][head][window][t] (NaN: not at L max).
const char* kFirstKey = "first_key_weight";
const char* kShare = "effective_keys_share";

void setup(ProbeResults& r, const ProbeSettings&) {
  const std::size_t rows_total = static_cast<std::size_t>(r.layers) * r.heads * r.windows * r.max_len;
  r.own[kFirstKey].assign(rows_total, NAN);
  r.own[kShare].assign(rows_total, NAN);
}

// exp(H(a / sum a)) / n; NaN for a row of zero (or non-finite) mass.
double effective_share(const double* a, int n) {
  double mass = 0.0;
  for (int k = 0; k < n; ++k) mass += std::max(a[k], 0.0);
  if (!(mass > 0.0) || !std::isfinite(mass)) return NAN;
  double entropy = 0.0;
  for (int k = 0; k < n; ++k) {
    const double p = std::max(a[k], 0.0) / mass;
    if (p > 0.0) entropy -= p * std::log(p);
  }
  return std::exp(entropy) / n;
}

void on_row(const ProbeRow& row, ProbeCounters&) {
  if (!row.at_max) return;
  row.results.own.at(kFirstKey)[row.index] = row.ws.a[0];
  row.results.own.at(kShare)[row.index] = effective_share(row.ws.a.data(), row.n);
}

// Per head and n-bin: the medians. Returns each head's medians of the last bin (a_0, share).
std::pair<std::vector<double>, std::vector<double>> write_csv(const ProbeOutput& o) {
  const ProbeResults& r = o.r;
  const std::vector<double>& first = r.own.at(kFirstKey);
  const std::vector<double>& share = r.own.at(kShare);
  std::ostringstream csv;
  csv << "layer,head,n_from,n_to,rows,median_first_key_weight,median_effective_keys_share\n";
  std::pair<std::vector<double>, std::vector<double>> last_bin;
  for (int l = 0; l < r.layers; ++l)
    for (int h = 0; h < r.heads; ++h)
      for (int from = 1; from <= r.max_len; from *= 2) {
        const int to = std::min(2 * from - 1, r.max_len);
        std::vector<double> a0, s;
        for (int w = 0; w < r.windows; ++w)
          for (int n = from; n <= to; ++n) {
            a0.push_back(first[r.row_index(l, h, w, n - 1)]);
            s.push_back(share[r.row_index(l, h, w, n - 1)]);
          }
        csv << l << ',' << h << ',' << from << ',' << to << ',' << a0.size() << ',' << num(median(a0)) << ','
            << num(median(s)) << '\n';
        if (2 * from > r.max_len) {
          last_bin.first.push_back(median(a0));
          last_bin.second.push_back(median(s));
        }
      }
  write_file_atomically(o.out / "sink.csv", csv.str());
  return last_bin;
}

ProbeSection write(const ProbeOutput& o) {
  const auto [first, share] = write_csv(o);
  std::ostringstream claims;
  claims << "| P7 first-key weight | - (not a claim of the paper: the attention sink) | median over heads in the last "
            "n-bin: a_0 "
         << num(median(first)) << ", effective keys exp(H)/n " << num(median(share)) << " | L = " << o.r.max_len << ", "
         << o.context.model_name << " |\n";
  const std::string figure =
      gnuplot_header(o.figures / "sink.png",
                     "P7: first-key weight and effective keys per n-bin (" + o.context.model_name + ")") +
      "set logscale x\nset key center right\nset xlabel 'n (visible keys, bin start)'\nset ylabel 'a_0 (first-key "
      "weight), exp(H)/n (effective keys / n)'\nset yrange [0:1.05]\nplot " +
      o.csv("sink.csv") +
      " using 3:6 smooth unique with linespoints title 'a_0 (mean over heads)', '' using 3:7 smooth unique with "
      "linespoints "
      "title 'exp(H)/n'\n";
  return {{"sink.csv"}, {{"sink", figure}}, claims.str(), ""};
}

}  // namespace

ProbeRegistration first_key_weight_probe() {
  return {"P7",
          "sink",
          "the first key's weight a_0 and the effective keys exp(H)/n per n-bin: sink or vanishing (sink.csv)",
          setup,
          on_row,
          nullptr,
          write};
}

}  // namespace sinklab::probes
