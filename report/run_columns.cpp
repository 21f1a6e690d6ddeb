#include "report/run_columns.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace sinklab {
namespace {

// A column of a finished run's summary (diverged runs included; a failed run has none).
Column summary_column(std::string name, std::function<std::string(const RunSummary&)> text, bool number = false) {
  return {std::move(name),
          [text = std::move(text)](const ReportRun& r) { return r.ok() ? text(*r.summary) : std::string(); }, number};
}

Column head_column(int layer, int head, const HeadStatistic& stat) {
  return summary_column(head_label(layer, head) + "_" + stat.name, [layer, head, &stat](const RunSummary& s) {
    const auto it = std::find_if(s.heads.begin(), s.heads.end(),
                                 [&](const HeadSinkStats& h) { return h.layer == layer && h.head == head; });
    if (it == s.heads.end()) return std::string();
    return stat.is_flag() ? std::string((*it).*stat.flag ? "1" : "0") : exact_number((*it).*stat.number);
  }, true);
}

std::string status_of(const ReportRun& r) { return r.diverged() ? "diverged" : r.ok() ? "ok" : "failed"; }

}  // namespace

std::string exact_number(double v) {
  if (std::isnan(v)) return "";
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, result.ptr);
}

std::vector<Column> run_table_columns(const std::set<std::pair<int, int>>& heads) {
  std::vector<Column> columns = {
      {"id", [](const ReportRun& r) { return r.id; }},
      {"variant", [](const ReportRun& r) { return r.variant; }},
      {"seed", [](const ReportRun& r) { return std::to_string(r.seed); }},
      {"status", status_of},
      summary_column("steps", [](const RunSummary& s) { return std::to_string(s.steps); }),
      summary_column("stop_reason", [](const RunSummary& s) { return s.stop_reason; }),
  };
  for (const RunNumber<RunSummary>& n : kRunSummaryNumbers)
    if (n.in_run_table == InRunTable::yes)
      columns.push_back(summary_column(n.name, [&n](const RunSummary& s) { return exact_number(n.value(s)); }, true));
  for (const auto& [layer, head] : heads)
    for (const HeadStatistic& stat : kHeadStatistics)
      if (stat.in_run_table == InRunTable::yes) columns.push_back(head_column(layer, head, stat));
  columns.push_back({"error", [](const ReportRun& r) {
                       return r.diverged() ? r.summary->non_finite : r.ok() ? "" : r.error;
                     }});
  return columns;
}

}  // namespace sinklab
