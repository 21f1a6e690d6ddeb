#include "run_files/head_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stats/head_statistics.h"

namespace sinklab {
namespace {

// The statistics' headings and docs name the trigger task's rows; a task without a fixed trigger row
// gets the role names instead (core/observe/position_roles.h: no-op rows, active rows).
constexpr std::pair<std::string_view, std::string_view> kRoleWords[] = {
    {"non-trig", "no-op"},
    {"trig ", "active "},
    {"@nt", "@no-op"},
    {"the trigger row averages keys 1..j: ideally 1/j", "an active row i averages its keys 1..i: ideally 1/i"},
};

std::string in_role_words(std::string text, bool trigger_task) {
  if (trigger_task) return text;
  for (const auto& [trigger, role] : kRoleWords)
    for (size_t at = text.find(trigger); at != std::string::npos; at = text.find(trigger, at + role.size()))
      text.replace(at, trigger.size(), role);
  return text;
}

struct ShownColumn {
  const HeadStatistic* stat;
  std::string heading;
  size_t width;  // as wide as its heading and at least as wide as "0.0000"
};

std::string right_aligned(const std::string& text, size_t width) {
  return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
}

std::string cell(const HeadSinkStats& h, const HeadStatistic& stat) {
  if (stat.is_flag()) return h.*stat.flag ? "yes" : "no";
  const double v = h.*stat.number;
  if (std::isnan(v)) return "-";  // its rows never occurred in this head (others have them)
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", v);
  return text;
}

// A number no head of the run defines is a statistic over rows the task does not have (or of an
// attention that has no such quantity): no column.
bool defined_in_run(const HeadStatistic& stat, const std::vector<HeadSinkStats>& heads) {
  if (stat.is_flag()) return true;
  return std::any_of(heads.begin(), heads.end(), [&](const HeadSinkStats& h) { return !std::isnan(h.*stat.number); });
}

constexpr size_t kLeadWidth = 10;  // "layer head"

size_t table_width(const std::vector<ShownColumn>& columns) {
  size_t width = kLeadWidth;
  for (const ShownColumn& c : columns) width += 2 + c.width;
  return width;
}

// The columns of a narrow table, and the headings left out: first those another shown column makes
// redundant, then from the right.
std::vector<std::string> narrow(std::vector<ShownColumn>& columns) {
  std::vector<std::string> left_out;
  const auto drop = [&](auto it) {
    left_out.push_back(it->heading);
    return columns.erase(it);
  };
  // Statistics over all rows are there for tasks without no-op rows (their docs say so).
  const bool no_op_rows = std::any_of(columns.begin(), columns.end(), [](const ShownColumn& c) {
    return !c.stat->is_flag() && c.stat->rows == StatisticRows::no_op;
  });
  const auto drop_all = [&](auto redundant) {
    for (auto it = columns.begin(); it != columns.end() && table_width(columns) > kNarrowHeadTableWidth;)
      it = redundant(*it->stat) ? drop(it) : it + 1;
  };
  if (no_op_rows) drop_all([](const HeadStatistic& s) { return s.rows == StatisticRows::non_sink; });
  // A column the others determine: the non-sink mass is row mass - sink mass of the same rows, the
  // weakest row is a detail of the mean beside it.
  const auto shown = [&](StatisticRows rows, RowValue value, Reduction reduction) {
    return std::any_of(columns.begin(), columns.end(), [&](const ShownColumn& c) {
      return !c.stat->is_flag() && c.stat->rows == rows && c.stat->value == value && c.stat->reduction == reduction;
    });
  };
  drop_all([&](const HeadStatistic& s) {
    return s.value == RowValue::non_sink_mass && shown(s.rows, RowValue::sink_mass, Reduction::mean) &&
           shown(s.rows, RowValue::row_mass, Reduction::mean);
  });
  drop_all(
      [&](const HeadStatistic& s) { return s.reduction == Reduction::min && shown(s.rows, s.value, Reduction::mean); });
  while (table_width(columns) > kNarrowHeadTableWidth && !columns.empty()) drop(columns.end() - 1);
  return left_out;
}

// The doc's first statement (up to a "; " outside parentheses): what the column is, without the
// remarks on older files and special cases that docs/analysis.md carries.
std::string first_statement(const std::string& doc) {
  int depth = 0;
  for (size_t i = 0; i + 1 < doc.size(); ++i) {
    depth += doc[i] == '(' ? 1 : doc[i] == ')' ? -1 : 0;
    if (depth == 0 && doc[i] == ';' && doc[i + 1] == ' ') return doc.substr(0, i);
  }
  return doc;
}

// "  heading  doc", cut at a word to fit the narrow width.
std::string legend_line(const std::string& heading, size_t heading_width, const std::string& doc) {
  std::string line = "  " + heading + std::string(heading_width - heading.size() + 2, ' ') + doc;
  if (line.size() <= kNarrowHeadTableWidth) return line + "\n";
  size_t cut = line.rfind(' ', kNarrowHeadTableWidth - 4);
  if (cut == std::string::npos || cut < heading_width + 4) cut = kNarrowHeadTableWidth - 4;
  while (cut > 0 && (line[cut - 1] == ',' || line[cut - 1] == ';' || line[cut - 1] == ' ')) --cut;
  return line.substr(0, cut) + " ...\n";
}

// Words separated by one space, as lines of at most the narrow width.
std::string wrapped(const std::string& text) {
  std::string out, line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > kNarrowHeadTableWidth) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return line.empty() ? out : out + line + "\n";
}

std::string step_or_dash(const std::optional<int64_t>& step) { return step ? std::to_string(*step) : "-"; }

// One line, only for a training run that found an onset (inspect and older files have none).
std::string sink_onsets(const std::vector<HeadSinkStats>& heads, bool trigger_task) {
  const bool any = std::any_of(heads.begin(), heads.end(), [](const HeadSinkStats& h) {
    return h.sink_onset_step_50.has_value() || h.sink_onset_step_90.has_value();
  });
  if (!any) return {};
  std::string out =
      in_role_words("(sink onset, the logged step from which BOS@non-trig stays >= 0.5 / >= 0.9:", trigger_task);
  for (const HeadSinkStats& h : heads)
    out += " L" + std::to_string(h.layer) + "H" + std::to_string(h.head) + " " + step_or_dash(h.sink_onset_step_50) +
           "/" + step_or_dash(h.sink_onset_step_90);
  return wrapped(out + "; - = not reached)");
}

std::string number_or_dash(const std::optional<double>& v, const char* format) {
  if (!v || std::isnan(*v)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, *v);
  return text;
}

bool defined(const std::optional<double>& v) { return v && !std::isnan(*v); }

// A token task's metrics over the active and no-op rows it scores (a role it scores none of, e.g. any
// of text_lm, is left out), and the task's own baselines (one line).
std::string role_metrics(const RunSummary& s) {
  std::string out;
  const auto role = [&](const char* rows, const std::optional<double>& loss, const std::optional<double>& accuracy) {
    if (!defined(loss) && !defined(accuracy)) return;
    out += std::string(out.empty() ? "" : "; ") + rows + ": loss " + number_or_dash(loss, "%.4f") + " nats  accuracy " +
           number_or_dash(accuracy, "%.4f");
  };
  role("active rows", s.eval_active_loss, s.eval_active_accuracy);
  role("no-op rows", s.eval_no_op_loss, s.eval_no_op_accuracy);
  if (out.empty()) return {};
  for (const auto& [name, value] : s.task_baselines) out += "; " + name + " " + number_or_dash(value, "%.4f");
  return out + "\n";
}

}  // namespace

std::string format_head_table(const RunSummary& s, HeadTableWidth width) {
  std::string out;
  char line[256];
  char eval[128];
  if (s.eval_loss) {  // a token task
    // Bits per token (nats / ln 2) too: language models are usually compared in bits per character.
    std::snprintf(eval, sizeof eval, "eval loss %.3e nats (%.4f bits)  accuracy %s", *s.eval_loss,
                  *s.eval_loss / std::numbers::ln2, number_or_dash(s.eval_accuracy, "%.4f").c_str());
  } else {
    std::snprintf(eval, sizeof eval, "eval mse %.3e  max err %.3e", s.eval_mse, s.eval_max_abs_error);
  }
  std::snprintf(line, sizeof line, "%s  seed %llu  %s after %lld steps  %s  (%.1f s)\n", s.name.c_str(),
                static_cast<unsigned long long>(s.seed), s.stop_reason.c_str(), static_cast<long long>(s.steps), eval,
                s.wall_seconds);
  out += line;
  out += role_metrics(s);

  const bool trigger_task = s.eval_trigger >= 0;  // the task fixes a trigger row (Task::fixed_eval_row)
  std::vector<ShownColumn> columns;
  for (const HeadStatistic& stat : kHeadStatistics)
    if (stat.in_head_table() && defined_in_run(stat, s.heads)) {
      std::string heading = in_role_words(stat.column, trigger_task);
      const size_t w = std::max<size_t>(heading.size(), 6);
      columns.push_back({&stat, std::move(heading), w});
    }
  const std::vector<std::string> left_out =
      width == HeadTableWidth::narrow ? narrow(columns) : std::vector<std::string>{};

  out += "layer head";
  for (const ShownColumn& c : columns) out += "  " + right_aligned(c.heading, c.width);
  out += '\n';
  for (const HeadSinkStats& h : s.heads) {
    std::snprintf(line, sizeof line, "%5d %4d", h.layer, h.head);
    out += line;
    for (const ShownColumn& c : columns) out += "  " + right_aligned(cell(h, *c.stat), c.width);
    out += '\n';
  }
  size_t heading_width = 0;
  for (const ShownColumn& c : columns) heading_width = std::max(heading_width, c.heading.size());
  for (const ShownColumn& c : columns)
    out += legend_line(c.heading, heading_width, in_role_words(first_statement(c.stat->doc), trigger_task));
  if (!left_out.empty()) {
    std::string names;
    for (const std::string& name : left_out) names += (names.empty() ? "" : ", ") + name;
    out += wrapped("(--wide adds: " + names + ")");
  }

  char trigger[48] = "";
  if (trigger_task) std::snprintf(trigger, sizeof trigger, "eval trigger j = %d, ", s.eval_trigger);
  // The graded sink excess first: a yes/no at eps calls alpha_0 0.30 a sink where uniform gives 0.21.
  if (s.sink_excess_mean && std::isfinite(*s.sink_excess_mean)) {
    std::snprintf(line, sizeof line,
                  "(sink excess over uniform %.2f: mean over heads, 0 = uniform, 1 = all on the sink keys)\n",
                  *s.sink_excess_mean);
    out += line;
  }
  std::snprintf(line, sizeof line,
                "(%sT = %d; sink: alpha_0 and sink mass > eps = %.2f; uniform H_T/T = %.4f; sink rate %.2f)\n", trigger,
                s.seq_len, s.sink_eps, s.uniform_baseline, s.sink_rate);
  out += line;
  out += sink_onsets(s.heads, trigger_task);
  out += "(statistics: docs/analysis.md; - = no such rows in this head; more per head in summary.json)\n";
  return out;
}

}  // namespace sinklab
