#include "run_files/head_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "stats/head_statistics.h"

namespace sinklab {
namespace {

// One column per statistic of stats/head_statistics.h that has a column (the rest are in the JSON
// files only), right-aligned, as wide as its header and at least as wide as "0.0000".
size_t column_width(const HeadStatistic& stat) { return std::max<size_t>(std::strlen(stat.column), 6); }

std::string right_aligned(const std::string& text, size_t width) {
  return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
}

std::string cell(const HeadSinkStats& h, const HeadStatistic& stat) {
  if (stat.is_flag()) return h.*stat.flag ? "yes" : "no";
  const double v = h.*stat.number;
  if (std::isnan(v)) return "-";  // its rows never occurred
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", v);
  return text;
}

std::string step_or_dash(const std::optional<int64_t>& step) { return step ? std::to_string(*step) : "-"; }

// One line, only for a training run that found an onset (inspect and older files have none).
std::string sink_onsets(const std::vector<HeadSinkStats>& heads) {
  const bool any = std::any_of(heads.begin(), heads.end(), [](const HeadSinkStats& h) {
    return h.sink_onset_step_50.has_value() || h.sink_onset_step_90.has_value();
  });
  if (!any) return {};
  std::string out = "(sink onset, the logged step from which BOS@non-trig stays >= 0.5 / >= 0.9:";
  for (const HeadSinkStats& h : heads)
    out += " L" + std::to_string(h.layer) + "H" + std::to_string(h.head) + " " + step_or_dash(h.sink_onset_step_50) + "/" +
           step_or_dash(h.sink_onset_step_90);
  return out + "; - = not reached)\n";
}

std::string number_or_dash(const std::optional<double>& v, const char* format) {
  if (!v || std::isnan(*v)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, *v);
  return text;
}

// A token task's metrics over its active and no-op rows, and the task's own baselines (one line).
std::string role_metrics(const RunSummary& s) {
  if (!s.eval_active_loss && !s.eval_no_op_loss) return {};
  std::string out = "active rows: loss " + number_or_dash(s.eval_active_loss, "%.4f") + " nats  accuracy " +
                    number_or_dash(s.eval_active_accuracy, "%.4f") + "; no-op rows: loss " +
                    number_or_dash(s.eval_no_op_loss, "%.4f") + " nats  accuracy " +
                    number_or_dash(s.eval_no_op_accuracy, "%.4f");
  for (const auto& [name, value] : s.task_baselines) out += "; " + name + " " + number_or_dash(value, "%.4f");
  return out + "\n";
}

}  // namespace

std::string format_head_table(const RunSummary& s) {
  std::string out;
  char line[256];
  char eval[96];
  if (s.eval_loss) {  // a token task
    // Bits per token (nats / ln 2) too: language models are usually compared in bits per character.
    std::snprintf(eval, sizeof eval, "eval loss %.3e nats (%.4f bits)  accuracy %.4f", *s.eval_loss,
                  *s.eval_loss / std::numbers::ln2, s.eval_accuracy.value_or(std::numeric_limits<double>::quiet_NaN()));
  } else {
    std::snprintf(eval, sizeof eval, "eval mse %.3e  max err %.3e", s.eval_mse, s.eval_max_abs_error);
  }
  std::snprintf(line, sizeof line, "%s  seed %llu  %s after %lld steps  %s  (%.1f s)\n", s.name.c_str(),
                static_cast<unsigned long long>(s.seed), s.stop_reason.c_str(), static_cast<long long>(s.steps), eval,
                s.wall_seconds);
  out += line;
  out += role_metrics(s);
  out += "layer head";
  for (const HeadStatistic& stat : kHeadStatistics)
    if (stat.in_head_table()) out += "  " + right_aligned(stat.column, column_width(stat));
  out += '\n';
  for (const HeadSinkStats& h : s.heads) {
    std::snprintf(line, sizeof line, "%5d %4d", h.layer, h.head);
    out += line;
    for (const HeadStatistic& stat : kHeadStatistics)
      if (stat.in_head_table()) out += "  " + right_aligned(cell(h, stat), column_width(stat));
    out += '\n';
  }
  char trigger[48] = "";
  if (s.eval_trigger >= 0) std::snprintf(trigger, sizeof trigger, "eval trigger j = %d, ", s.eval_trigger);
  std::snprintf(line, sizeof line, "(%sT = %d; alpha_0 sink threshold eps = %.2f, uniform baseline H_T/T = %.4f; sink rate %.2f)\n",
                trigger, s.seq_len, s.sink_eps, s.uniform_baseline, s.sink_rate);
  out += line;
  out += sink_onsets(s.heads);
  out += "(statistics: docs/analysis.md; - = no such rows or not defined for this attention; more per head in summary.json)\n";
  return out;
}

}  // namespace sinklab
