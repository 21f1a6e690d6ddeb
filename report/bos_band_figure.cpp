#include "report/bos_band_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "report/gnuplot_script.h"

namespace sinklab {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.8g", v);
  return buf;
}

// The values at one step of one head, one per seed that logged it.
using StepValues = std::map<int64_t, std::vector<double>>;

}  // namespace

bool write_bos_band_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                           const std::vector<SeedMetrics>& seeds, const BosRows& rows) {
  const auto statistic = rows.statistic();
  std::map<std::pair<int, int>, StepValues> heads;
  for (const SeedMetrics& s : seeds)
    for (const MetricsRecord& m : s.metrics)
      for (const HeadSinkStats& h : m.heads) {
        const double value = h.*statistic;
        if (std::isfinite(value)) heads[{h.layer, h.head}][m.step].push_back(value);
      }
  if (heads.empty()) return false;
  std::string data = "# " + title + "\n# per (layer, head) one block: step mean min max n   (" +
                     (rows.no_op ? "bos_mass_nontrigger_mean" : "bos_mass_mean") +
                     " on the step's training batch over the " + std::to_string(seeds.size()) +
                     " seeds' logs; n = seeds that logged the step)\n";
  std::string plots;
  int block = 0;
  for (const auto& [key, steps] : heads) {
    data += "# " + head_label(key.first, key.second) + "\n";
    for (const auto& [step, values] : steps) {
      double sum = 0.0;
      for (double v : values) sum += v;
      const auto [low, high] = std::minmax_element(values.begin(), values.end());
      data += std::to_string(step) + " " + num(sum / static_cast<double>(values.size())) + " " + num(*low) + " " +
              num(*high) + " " + std::to_string(values.size()) + "\n";
    }
    data += "\n\n";
    const std::string source = "here." + gnuplot_quote(name + ".dat") + " index " + std::to_string(block++);
    const std::string lc = " lc " + std::to_string(key.second + 1);
    plots += std::string(plots.empty() ? "" : ", \\\n       ") + source + " using 1:3:4 with filledcurves" + lc +
             " fs transparent solid 0.2 noborder notitle, \\\n       " + source + " using 1:2 with lines lw 1.5" + lc +
             " dt " + std::to_string(key.first % 5 + 1) + " title " +
             gnuplot_quote(head_label(key.first, key.second) + " mean (band: min-max over seeds)");
  }
  std::string body = "  set title " + gnuplot_quote(title) + "\n";
  body +=
      "  set xlabel \"step\"\n  set ylabel " + gnuplot_quote("BOS mass on " + rows.name) + "\n  set yrange [0:1.05]\n";
  body += "  set key outside right top\n  set grid\n  plot " + plots + "\n";
  write_report_file(fig_dir / (name + ".dat"), data);
  write_report_file(fig_dir / (name + ".gp"), gnuplot_script(name, title, 900, 480, body));
  return true;
}

}  // namespace sinklab
