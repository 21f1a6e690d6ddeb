#include "report/onset_distribution.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "report/gnuplot_script.h"

namespace sinklab {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.8g", v);
  return buf;
}

struct Onsets {
  int pairs = 0;                    // (seed, head) pairs of the variant's usable runs
  std::vector<int64_t> half, most;  // the onsets at 0.5 and at 0.9 that exist, with their seed order kept
};

Onsets onsets_of(const ReportRuns& runs, const std::string& variant) {
  Onsets o;
  for (const ReportRun& r : runs.runs) {
    // Onsets follow the BOS mass on no-op rows: a task without them (text_lm) has none to count.
    if (r.variant != variant || !r.usable() || !measures_of(r).no_op_rows) continue;
    for (const HeadSinkStats& h : r.summary->heads) {
      ++o.pairs;
      if (h.sink_onset_step_50) o.half.push_back(*h.sink_onset_step_50);
      if (h.sink_onset_step_90) o.most.push_back(*h.sink_onset_step_90);
    }
  }
  return o;
}

// The median of a sorted, non-empty list (the mean of the middle two for an even count).
double median(const std::vector<int64_t>& sorted) {
  const size_t n = sorted.size();
  return n % 2 ? static_cast<double>(sorted[n / 2]) : (static_cast<double>(sorted[n / 2 - 1]) + sorted[n / 2]) / 2.0;
}

// "3/4 reached", then median and range cells; empty cells when none reached.
void push_onset_cells(std::vector<std::string>& row, std::vector<int64_t> steps, int pairs) {
  std::sort(steps.begin(), steps.end());
  row.push_back(std::to_string(steps.size()) + "/" + std::to_string(pairs));
  if (steps.empty()) {
    row.insert(row.end(), {"", ""});
    return;
  }
  row.push_back(num(median(steps)));
  row.push_back(std::to_string(steps.front()) + "-" + std::to_string(steps.back()));
}

}  // namespace

bool write_onset_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                        const ReportRuns& runs) {
  // Two columns per variant, 0.5 left and 0.9 right; dots spread across their column in run order so
  // that equal steps stay visible. Above each variant "k/N | k/N": the pairs that reached each onset.
  std::string half = "# x onset_step   (sink_onset_step_50, one dot per seed and head)\n";
  std::string most = "# x onset_step   (sink_onset_step_90)\n";
  std::string xtics, labels;  // labels: how many pairs reached each onset, above each variant
  bool any = false;
  for (size_t v = 0; v < runs.variants.size(); ++v) {
    const Onsets o = onsets_of(runs, runs.variants[v]);
    const auto column = [&](const std::vector<int64_t>& steps, double centre, std::string& out) {
      for (size_t i = 0; i < steps.size(); ++i) {
        const double spread = steps.size() > 1 ? 0.16 * (static_cast<double>(i) / (steps.size() - 1) - 0.5) : 0.0;
        out += num(centre + spread) + " " + std::to_string(steps[i]) + "\n";
        any = true;
      }
    };
    column(o.half, static_cast<double>(v) - 0.2, half);
    column(o.most, static_cast<double>(v) + 0.2, most);
    xtics += std::string(xtics.empty() ? "" : ", ") + gnuplot_quote(runs.variants[v]) + " " + std::to_string(v);
    if (o.pairs > 0)
      labels += "  set label " + gnuplot_quote(std::to_string(o.half.size()) + "/" + std::to_string(o.pairs) + " | " +
                                               std::to_string(o.most.size()) + "/" + std::to_string(o.pairs)) +
                " at " + std::to_string(v) + ", graph 0.95 center\n";
  }
  if (!any) return false;
  // gnuplot cannot plot an empty block
  const auto block = [](const std::string& text) {
    return text.find('\n') + 1 == text.size() ? text + "nan nan\n" : text;
  };
  const std::string data = "# " + title + "\n" + block(half) + "\n\n" + block(most);
  std::string body = "  set title " + gnuplot_quote(title) + "\n";
  body += "  set ylabel \"onset step\"\n  set yrange [0:*]\n" + labels;
  body += "  set xrange [-0.6:" + num(static_cast<double>(runs.variants.size()) - 0.4) + "]\n";
  body += "  set xlabel \"variant (a dot per seed and head)\"\n  set xtics (" + xtics +
          ") rotate by -30\n  set grid ytics\n  set key outside bottom center horizontal\n";
  body += "  plot here." + gnuplot_quote(name + ".dat") +
          " index 0 using 1:2 with points pt 6 ps 1.0 lc rgb \"#3b528b\" title \"BOS mass stays >= 0.5 from\", \\\n";
  body += "       here." + gnuplot_quote(name + ".dat") +
          " index 1 using 1:2 with points pt 7 ps 0.8 lc rgb \"#c0392b\" title \"BOS mass stays >= 0.9 from\"\n";
  write_report_file(fig_dir / (name + ".dat"), data);
  write_report_file(
      fig_dir / (name + ".gp"),
      gnuplot_script(name, title, std::max(600, 160 * static_cast<int>(runs.variants.size()) + 250), 480, body));
  return true;
}

Table onset_table(const ReportRuns& runs) {
  Table t;
  t.title = "Sink onset steps (over seeds and heads)";
  t.header = {"variant",     "reached 0.5",       "median step (0.5)", "steps (0.5)",
              "reached 0.9", "median step (0.9)", "steps (0.9)"};
  for (const std::string& variant : runs.variants) {
    const Onsets o = onsets_of(runs, variant);
    if (o.pairs == 0) continue;
    std::vector<std::string> row = {variant};
    push_onset_cells(row, o.half, o.pairs);
    push_onset_cells(row, o.most, o.pairs);
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "Onset: the first logged training step from which a head's BOS mass on the no-op rows of the logged "
      "batches stays >= 0.5 (>= 0.9) to the end of training. reached: (seed, head) pairs with an onset out of "
      "all pairs of the runs that did not diverge; a pair without one never stayed above the threshold "
      "(or its run was written before onsets were recorded).");
  return t;
}

}  // namespace sinklab
