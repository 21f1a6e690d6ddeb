#include "report/report_line_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numbers>
#include <optional>

#include "report/gnuplot_script.h"

namespace sinklab {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.8g", v);
  return buf;
}

bool log_plottable(double v) { return std::isfinite(v) && v > 0.0; }

}  // namespace

LossKind loss_kind_of(const TaskMeasures& m) { return m.tokens ? LossKind::cross_entropy : LossKind::mse; }

BosRows bos_rows_of(const TaskMeasures& m) { return {m.no_op_rows, sink_rows_name(m)}; }

std::string bos_axis_label(const TaskMeasures& m) {
  if (m.no_op_rows && m.all_rows) return "BOS mass on " + sink_rows_name(m) + " (all rows where a task has none)";
  return "BOS mass on " + sink_rows_name(m);
}

bool write_loss_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                       const std::vector<LossSeries>& series, bool show_eval, LossKind kind) {
  const bool mse = kind == LossKind::mse;
  const std::string eval_key = mse ? "eval_mse" : "eval_loss";
  const auto plottable = [mse](double v) { return mse ? log_plottable(v) : std::isfinite(v); };
  std::string data = "# " + title + "\n# per series: a block of `step loss`, then a block of `step " + eval_key +
                     "`; blocks separated by two blank lines" + (mse ? "" : "; loss in nats") + "\n";
  std::string plots;
  int block = 0;
  bool any = false;
  double low = std::numeric_limits<double>::infinity(), high = -low;  // of what is drawn
  for (const auto& s : series) {
    std::string loss_block, eval_block;
    for (const auto& m : s.metrics) {
      if (plottable(m.loss)) {
        loss_block += std::to_string(m.step) + " " + num(m.loss) + "\n";
        low = std::min(low, m.loss);
        high = std::max(high, m.loss);
      }
      const std::optional<double>& eval = mse ? m.eval_mse : m.eval_loss;
      if (eval && plottable(*eval)) {
        eval_block += std::to_string(m.step) + " " + num(*eval) + "\n";
        if (show_eval) {
          low = std::min(low, *eval);
          high = std::max(high, *eval);
        }
      }
    }
    // gnuplot cannot plot an empty block, so a series without points gets none in the script.
    data += "# " + (s.title.empty() ? std::string("(same variant)") : s.title) + ": loss\n" +
            (loss_block.empty() ? "nan nan\n" : loss_block) + "\n\n";
    data += "# " + eval_key + "\n" + (eval_block.empty() ? "nan nan\n" : eval_block) + "\n\n";
    const std::string lc = " lc " + std::to_string(s.colour);
    if (!loss_block.empty()) {
      plots += std::string(plots.empty() ? "" : ", \\\n       ") + "here." + gnuplot_quote(name + ".dat") + " index " +
               std::to_string(block) + " using 1:2 with lines" + lc + " lw 1.5 " +
               (s.title.empty() ? "notitle" : "title " + gnuplot_quote(s.title));
      any = true;
    }
    if (show_eval && !eval_block.empty())
      plots += std::string(plots.empty() ? "" : ", \\\n       ") + "here." + gnuplot_quote(name + ".dat") + " index " +
               std::to_string(block + 1) + " using 1:2 with points pt 7 ps 0.7" + lc + " " +
               (s.title.empty()
                    ? "notitle"
                    : "title " + gnuplot_quote(series.size() == 1 ? (mse ? "evaluation MSE" : "evaluation loss")
                                                                  : s.title + (mse ? " eval MSE" : " eval loss")));
    block += 2;
  }
  if (!any) return false;
  std::string body = "  set title " + gnuplot_quote(title) + "\n";
  int64_t last_step = 0, marked = -1;  // marked: the latest divergence mark, if any
  for (const auto& s : series)
    for (const auto& m : s.metrics) last_step = std::max(last_step, m.step);
  for (const auto& s : series) {
    if (s.diverged_step < 0) continue;
    const std::string at = std::to_string(s.diverged_step);
    body += "  set arrow from " + at + ", graph 0 to " + at + ", graph 1 nohead lc rgb \"red\" dt 2 lw 1.5\n";
    body += "  set label " + gnuplot_quote("diverged at step " + at) + " at " + at +
            ", graph 0.92 right offset -0.5, 0 tc rgb \"red\"\n";
    marked = std::max(marked, s.diverged_step);
  }
  // A mark stays in view, a little inside the right border rather than drawn on it.
  if (marked >= 0) {
    const int64_t end = std::max(last_step, marked);
    body += "  set xrange [*:" + std::to_string(end + std::max<int64_t>(1, end / 20)) + "]\n";
  }
  if (mse) {
    body += "  set logscale y\n  set format y \"%.0e\"\n  set xlabel \"step\"\n  set ylabel \"MSE\"\n";
  } else {
    // Bits per token on the right (language models are usually compared in bits): both ranges are
    // set from the data, so the axes line up exactly (gnuplot's linked axes place odd ticks).
    const double pad = std::max(0.05 * (high - low), 1e-3);
    const double bottom = std::max(0.0, low - pad), top = high + pad;
    body += "  set xlabel \"step\"\n  set ylabel \"cross-entropy (nats)\"\n  set y2label \"cross-entropy (bits)\"\n";
    body += "  set yrange [" + num(bottom) + ":" + num(top) + "]\n  set y2range [" + num(bottom / std::numbers::ln2) +
            ":" + num(top / std::numbers::ln2) + "]\n  set ytics nomirror\n  set y2tics\n";
  }
  body += "  set key outside right top\n  set grid\n";
  body += "  plot " + plots + "\n";
  write_report_file(fig_dir / (name + ".dat"), data);
  write_report_file(fig_dir / (name + ".gp"), gnuplot_script(name, title, 900, 480, body));
  return true;
}

bool write_bos_step_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                           const std::vector<MetricsRecord>& metrics, const BosRows& rows) {
  const auto statistic = rows.statistic();
  std::vector<std::pair<int, int>> heads;
  for (const auto& m : metrics)
    for (const auto& h : m.heads)
      if (std::find(heads.begin(), heads.end(), std::make_pair(h.layer, h.head)) == heads.end())
        heads.emplace_back(h.layer, h.head);
  std::sort(heads.begin(), heads.end());
  if (heads.empty()) return false;
  std::string data = "# " + title + "\n# step";
  for (const auto& [l, h] : heads) {
    data += ' ';
    data += head_label(l, h);
  }
  data += std::string("   (") + (rows.no_op ? "bos_mass_nontrigger_mean" : "bos_mass_mean") +
          " on the step's training batch; nan = not logged)\n";
  for (const auto& m : metrics) {
    data += std::to_string(m.step);
    for (const auto& key : heads) {
      const auto it = std::find_if(m.heads.begin(), m.heads.end(), [&](const HeadSinkStats& s) {
        return s.layer == key.first && s.head == key.second;
      });
      data += ' ';
      data += it == m.heads.end() ? std::string("nan") : num((*it).*statistic);
    }
    data += "\n";
  }
  std::string body = "  set title " + gnuplot_quote(title) + "\n";
  body +=
      "  set xlabel \"step\"\n  set ylabel " + gnuplot_quote("BOS mass on " + rows.name) + "\n  set yrange [0:1.05]\n";
  body += "  set key outside right top\n  set grid\n  plot ";
  for (size_t c = 0; c < heads.size(); ++c)
    body += std::string(c ? ", \\\n       " : "") + "here." + gnuplot_quote(name + ".dat") + " using 1:" +
            std::to_string(c + 2) + " with lines lw 1.5 lc " + std::to_string(heads[c].second + 1) + " dt " +
            std::to_string(heads[c].first % 5 + 1) + " title " +
            gnuplot_quote(head_label(heads[c].first, heads[c].second));
  body += "\n";
  write_report_file(fig_dir / (name + ".dat"), data);
  write_report_file(fig_dir / (name + ".gp"), gnuplot_script(name, title, 900, 480, body));
  return true;
}

bool write_bos_dot_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                          const ReportRuns& runs, const std::vector<VariantSummary>& variants) {
  std::string dots = "# x bos_mass seed   (one dot per run and head: bos_mass_nontrigger_mean, or bos_mass_mean for a "
                     "task without no-op rows)\n";
  TaskMeasures measures;
  std::string means = "# x mean ci_low ci_high   (mean over seeds with its 95% bootstrap interval)\n";
  std::string xtics;
  bool any = false;
  for (size_t v = 0; v < variants.size(); ++v) {
    const auto& heads = variants[v].heads;
    if (heads.empty()) continue;
    const double width = std::min(0.7 / static_cast<double>(heads.size()), 0.2);
    measures |= variants[v].measures;
    const bool no_op = variants[v].measures.no_op_rows;
    std::map<std::pair<int, int>, double> slot;
    int index = 0;
    for (const auto& [key, agg] : heads) {
      const double x = static_cast<double>(v) + (index++ - (static_cast<double>(heads.size()) - 1) / 2) * width;
      slot[key] = x;
      const BootstrapMeanCi& bos = no_op ? agg.bos : agg.bos_all;
      if (bos.n == 0) continue;  // a point gnuplot would read as "nan nan nan nan"
      const double low = bos.defined() ? bos.lower : bos.mean, high = bos.defined() ? bos.upper : bos.mean;
      means += num(x) + " " + num(bos.mean) + " " + num(low) + " " + num(high) + "\n";
    }
    for (const auto& r : runs.runs)
      if (r.variant == variants[v].variant && r.usable())
        for (const auto& h : r.summary->heads) {
          const double value = no_op ? h.bos_mass_nontrigger_mean : h.bos_mass_mean;
          if (std::isnan(value)) continue;
          dots += num(slot[{h.layer, h.head}]) + " " + num(value) + " " + std::to_string(r.seed) + "\n";
          any = true;
        }
    xtics += std::string(xtics.empty() ? "" : ", ") + gnuplot_quote(variants[v].variant) + " " + std::to_string(v);
  }
  if (!any) return false;
  std::string data = "# " + title + "\n" + dots + "\n\n" + means;
  std::string body = "  set title " + gnuplot_quote(title) + "\n";
  body += "  set ylabel " + gnuplot_quote(bos_axis_label(measures)) + "\n  set yrange [-0.05:1.05]\n";
  body += "  set xrange [-0.6:" + num(static_cast<double>(variants.size()) - 0.4) + "]\n";
  body += "  set xlabel \"variant (a dot per seed and head)\"\n  set xtics (" + xtics +
          ") rotate by -30\n  set grid ytics\n  set key outside bottom center horizontal\n";
  body += "  plot here." + gnuplot_quote(name + ".dat") +
          " index 1 using 1:2:3:4 with yerrorbars pt 6 ps 1.2 lc rgb \"#c0392b\" title \"mean and 95% CI\", \\\n";
  body += "       here." + gnuplot_quote(name + ".dat") +
          " index 0 using 1:2 with points pt 7 ps 0.5 lc rgb \"#3b528b\" title \"one seed, one head\"\n";
  write_report_file(fig_dir / (name + ".dat"), data);
  write_report_file(
      fig_dir / (name + ".gp"),
      gnuplot_script(name, title, std::max(600, 160 * static_cast<int>(variants.size()) + 250), 480, body));
  return true;
}

}  // namespace sinklab
