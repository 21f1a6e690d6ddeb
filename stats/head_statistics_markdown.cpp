#include "stats/head_statistics_markdown.h"

#include "stats/head_statistics.h"

namespace sinklab {
namespace {

// Cells of a markdown table: no '|' (abs(), not |x|).
const char* rows_text(StatisticRows rows) {
  switch (rows) {
    case StatisticRows::no_op: return "no-op rows";
    case StatisticRows::active: return "active rows";
    case StatisticRows::non_sink: return "rows that are not sink keys";
    case StatisticRows::all: return "all rows 0..T-1";
  }
  return "?";
}

const char* value_text(RowValue value) {
  switch (value) {
    case RowValue::sink_mass: return "sink mass: sum of A[i,k] over the sink keys k <= i";
    case RowValue::row_mass: return "row mass: sum of A[i,k] over k <= i";
    case RowValue::non_sink_mass:
      return "row mass minus sink mass (a mean is taken as sum of row masses minus sum of sink masses)";
    case RowValue::entropy: return "-sum_k p log p with p = A[i,k] / row mass; 0 when the row mass is not positive";
    case RowValue::keys_mean: return "mean of A[i,k] over the n non-sink keys k <= i; rows with n = 0 are skipped";
    case RowValue::keys_max_deviation:
      return "max over the n non-sink keys k <= i of abs(A[i,k] - 1/n); rows with n = 0 are skipped";
    case RowValue::sink_share: return "sink mass / row mass; 0 when the row mass is not positive";
    case RowValue::sink_share_abs:
      return "sum of abs(A[i,k]) over the sink keys / sum of abs(A[i,k]) over k <= i; 0 when that sum is 0";
    case RowValue::gated_non_sink_mass:
      return "(row mass minus sink mass) x the row's output gate g_i (g_i = 1 without a gate)";
    case RowValue::virtual_mass:
      return "the row's virtual mass from attention (mass sent to no key); a row where it is undefined makes the "
             "statistic null, and so does a normalizer that reports none";
    case RowValue::value_weighted_sink_share:
      return "sum over the sink keys of abs(A[i,k]) norm(u_k) / sum over k <= i of abs(A[i,k]) norm(u_k), "
             "u_k = W_O^h W_V^h x_k; rows where the sum is 0 are skipped";
    case RowValue::value_weighted_sink_share_v:
      return "the same with norm(v_k), v_k = W_V^h x_k; rows where the sum is 0 are skipped";
    case RowValue::value_weighted_zero:
      return "1 when sum over k <= i of abs(A[i,k]) norm(u_k) is 0, else 0";
    case RowValue::gate: return "the row's output gate g_i (mean over the head's channels)";
    case RowValue::sink_excess:
      return "(sink share - u) / (1 - u) with u = (sink keys k <= i) / (i + 1), uniform attention's sink share; rows "
             "whose visible keys are all sink keys are skipped";
  }
  return "?";
}

const char* reduction_text(Reduction reduction) {
  switch (reduction) {
    case Reduction::mean: return "mean over (sample, row) pairs";
    case Reduction::min: return "smallest over (sample, row) pairs";
    case Reduction::sample_mean: return "mean over samples of each sample's row mean";
    case Reduction::above_eps:
      return "true when the mean over samples of each sample's row mean is > eps and the same mean of the sink mass "
             "(not divided by the row mass) is > eps too";
  }
  return "?";
}

}  // namespace

std::string head_statistics_markdown() {
  std::string out = "| field | rows | value of row i | over rows | meaning |\n|---|---|---|---|---|\n";
  for (const HeadStatistic& s : kHeadStatistics) {
    out += "| `" + std::string(s.name) + "`" + (s.in_files == InFiles::null_when_absent ? " *" : "") +
           (s.in_run_table == InRunTable::yes ? " †" : "") + " | " + rows_text(s.rows) + " | " + value_text(s.value) +
           " | " + reduction_text(s.reduction) + " | " + s.doc + " |\n";
  }
  out += "\n\\* read as null from run files written before the statistic existed. † a column of the report's "
         "summary.csv for every head (`L0H1_<field>`).\n";
  return out;
}

}  // namespace sinklab
