#include "report/error_vs_sink.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "core/options/bound.h"
#include "report/gnuplot_script.h"

namespace sinklab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string sig(double v, int digits = 3) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

bool on_log_axes(double error, double gap) { return error > 0 && gap > 0 && std::isfinite(error + gap); }

struct Range {
  double low = kNaN, high = kNaN;
  void add(double v) {
    if (!std::isfinite(v)) return;
    if (!(v >= low)) low = v;
    if (!(v <= high)) high = v;
  }
  std::string text() const { return sig(low) + " .. " + sig(high); }
};

std::string fit_text(const LogLogFit& fit) {
  return fit.points >= 3 ? "slope " + sig(fit.slope) + " +- " + sig(fit.slope_standard_error, 2) +
                               " (standard error), " + std::to_string(fit.points) + " runs"
                         : "fewer than 3 runs with both quantities > 0";
}

}  // namespace

double sink_gap(const std::vector<HeadSinkStats>& heads, int eval_trigger) {
  double best = kNaN;
  for (const HeadSinkStats& h : heads) {
    const auto T = static_cast<int>(h.bos_mass_by_row.size());
    double least = kNaN;
    for (int i = 1; i < T; ++i)
      if (i != eval_trigger && !(h.bos_mass_by_row[static_cast<size_t>(i)] >= least))
        least = h.bos_mass_by_row[static_cast<size_t>(i)];
    if (std::isfinite(least) && !(least <= best)) best = least;
  }
  return 1.0 - best;
}

LogLogFit fit_log_log(const std::vector<ErrorSinkPoint>& points, double ErrorSinkPoint::*error) {
  LogLogFit fit;
  double sx = 0, sy = 0;
  std::vector<std::pair<double, double>> xy;
  for (const auto& p : points)
    if (on_log_axes(p.*error, p.sink_gap)) xy.emplace_back(std::log(p.*error), std::log(p.sink_gap));
  fit.points = static_cast<int>(xy.size());
  if (fit.points < 3) return fit;
  for (const auto& [x, y] : xy) sx += x, sy += y;
  const double n = fit.points, mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0;
  for (const auto& [x, y] : xy) sxx += (x - mx) * (x - mx), sxy += (x - mx) * (y - my);
  if (sxx <= 0) return fit;
  fit.slope = sxy / sxx;
  fit.intercept = my - fit.slope * mx;
  double residual = 0;
  for (const auto& [x, y] : xy) residual += std::pow(y - fit.intercept - fit.slope * x, 2);
  fit.slope_standard_error = std::sqrt(residual / (n - 2) / sxx);
  return fit;
}

std::string error_vs_sink_markdown(const std::vector<ErrorSinkPoint>& trained,
                                   const std::vector<ErrorSinkPoint>& constructions) {
  std::string md =
      "| stop threshold | runs | stopped | mean eta | mean eta_nt | mean 1 - BOS_min | (1 - BOS_min) / eta | "
      "(1 - BOS_min) / eta_nt | 1 - BOS_min <= 2 eta |\n|---|---|---|---|---|---|---|---|---|\n";
  std::map<double, std::vector<const ErrorSinkPoint*>, std::greater<>> by_threshold;
  for (const auto& p : trained) by_threshold[p.setting].push_back(&p);
  for (const auto& [threshold, group] : by_threshold) {
    int stopped = 0, within = 0, finite = 0;
    double eta = 0, eta_no_op = 0, gap = 0;
    Range ratio, ratio_no_op;
    for (const auto* p : group) {
      stopped += p->stopped;
      if (!std::isfinite(p->eta) || !std::isfinite(p->sink_gap)) continue;
      ++finite;
      eta += p->eta;
      eta_no_op += p->eta_no_op;
      gap += p->sink_gap;
      within += p->sink_gap <= 2 * p->eta;
      ratio.add(p->sink_gap / p->eta);
      ratio_no_op.add(p->sink_gap / p->eta_no_op);
    }
    const auto mean = [&](double sum) { return finite ? sig(sum / finite) : std::string("-"); };
    md += "| " + sig(threshold) + " | " + std::to_string(group.size()) + " | " + std::to_string(stopped) + " | " +
          mean(eta) + " | " + mean(eta_no_op) + " | " + mean(gap) + " | " + ratio.text() + " | " + ratio_no_op.text() +
          " | " + std::to_string(within) + "/" + std::to_string(finite) + " |\n";
  }
  if (!constructions.empty()) {
    md += "\n| construction beta | eta | eta_nt | 1 - BOS_min | (1 - BOS_min) / eta |\n|---|---|---|---|---|\n";
    for (const auto& p : constructions)
      md += "| " + sig(p.setting) + " | " + sig(p.eta, 4) + " | " + sig(p.eta_no_op, 4) + " | " + sig(p.sink_gap, 4) +
            " | " + sig(p.sink_gap / p.eta, 5) + " |\n";
  }
  md += "\nLog-log fit of 1 - BOS_min over the trained runs: on eta " +
        fit_text(fit_log_log(trained, &ErrorSinkPoint::eta)) + "; on eta_nt " +
        fit_text(fit_log_log(trained, &ErrorSinkPoint::eta_no_op)) + ".\n";
  return md;
}

void write_error_vs_sink(const std::filesystem::path& dir, const std::vector<ErrorSinkPoint>& trained,
                         const std::vector<ErrorSinkPoint>& constructions) {
  std::string csv = "kind,name,setting,stopped,eta,eta_no_op,one_minus_bos_min\n";
  const auto rows = [&](const std::vector<ErrorSinkPoint>& points, const char* kind) {
    for (const auto& p : points)
      csv += std::string(kind) + "," + p.name + "," + format_number(p.setting) + "," + (p.stopped ? "1" : "0") + "," +
             format_number(p.eta) + "," + format_number(p.eta_no_op) + "," + format_number(p.sink_gap) + "\n";
  };
  rows(trained, "trained");
  rows(constructions, "construction");
  write_report_file(dir / "error_vs_sink.csv", csv);
  write_report_file(dir / "error_vs_sink.md", error_vs_sink_markdown(trained, constructions));

  // One data file per group (columns eta, eta_nt, 1 - BOS_min): trained runs that stopped, trained runs
  // at the step cap, the construction. gnuplot skips an empty block without counting it, so no indices.
  const char* groups[3] = {"stopped", "capped", "construction"};
  double lowest = 1.0, highest = 0.0;
  int counts[3] = {0, 0, 0};
  for (const int group : {0, 1, 2}) {
    std::string data = "# eta eta_nt 1-BOS_min: " + std::string(groups[group]) + "\n";
    for (const auto& p : group == 2 ? constructions : trained) {
      if (!on_log_axes(p.eta, p.sink_gap) || !on_log_axes(p.eta_no_op, p.sink_gap) ||
          (group < 2 && p.stopped != (group == 0)))
        continue;
      data += format_number(p.eta) + " " + format_number(p.eta_no_op) + " " + format_number(p.sink_gap) + "\n";
      ++counts[group];
      lowest = std::min({lowest, p.eta, p.eta_no_op, p.sink_gap});
      highest = std::max({highest, p.eta, p.eta_no_op, p.sink_gap});
    }
    write_report_file(dir / ("error_vs_sink_" + std::string(groups[group]) + ".dat"), data);
  }
  const std::string title = "Error against sink: 1 - min BOS@nt vs evaluation error";
  const std::string range = "[" + format_number(lowest / 2) + ":" + format_number(std::max(highest * 2, 1.0)) + "]";
  std::string body = "  set multiplot layout 1,2 title " + gnuplot_quote(title) + "\n  set logscale xy\n  set grid\n";
  body += "  set key left top\n  set xrange " + range + "\n  set yrange " + range + "\n";
  body += "  set ylabel \"1 - min BOS weight on no-op rows\"\n";
  // gnuplot refuses a file without points: plot only the groups that have some.
  const char* styles[3] = {"with points pt 7 ps 1.2 lc rgb \"#1f77b4\" title \"trained, stopped\"",
                           "with points pt 6 ps 1.2 lc rgb \"#ff7f0e\" title \"trained, step cap\"",
                           "with linespoints pt 2 lw 1.5 lc rgb \"#2ca02c\" title \"construction (beta)\""};
  for (const auto& [column, label] : {std::pair{1, "eta: eval max |pred - y|, all rows"},
                                      std::pair{2, "eta_nt: eval max |pred - y|, no-op rows"}}) {
    body += "  set xlabel " + gnuplot_quote(label) + "\n  plot ";
    for (const int group : {0, 1, 2})
      if (counts[group] > 0)
        body += "here." + gnuplot_quote("error_vs_sink_" + std::string(groups[group]) + ".dat") + " using " +
                std::to_string(column) + ":3 " + styles[group] + ", \\\n       ";
    body += "2*x with lines dt 2 lc rgb \"#d62728\" title \"1 - BOS_min = 2 x\"\n";
  }
  body += "  unset multiplot\n";
  write_report_file(dir / "error_vs_sink.gp", gnuplot_script("error_vs_sink", title, 1400, 640, body));
}

}  // namespace sinklab
