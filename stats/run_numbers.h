#pragma once
// The run-level numbers, each described once: in SINKLAB_RUN_NUMBERS those of summary.json (one per
// run: what its final evaluation measured, how training ended), in SINKLAB_STEP_NUMBERS those of a
// metrics.jsonl line (one per logged step). An entry gives the name (also the JSON key), its column in
// the report's run table summary.csv (or none), how the report prints it, and one line of
// documentation. Everything else iterates the lists: the RunSummary and MetricsRecord fields, their
// JSON writer and reader (run_files/run_summary.cpp), summary.csv (report/report_summary_tables.cpp)
// and the table in docs/analysis.md (stats/run_numbers_markdown.h). The per-head statistics have their
// own list, stats/head_statistics.h.
//
// ALWAYS(name, in_run_table, format, doc) is a double written in every file (NaN as null: a number the
//   run did not compute, e.g. any metric of a diverged run, eval_mse of a token task);
// WHEN_DEFINED(...) is a std::optional<double>, left out of the file when unset (a token task's
//   metrics on a vector task).
#include <limits>
#include <optional>

namespace sinklab {

// How the report prints a number (report/report_table.h maps these to text; summary.csv always
// holds the shortest exact decimal).
enum class NumberFormat : unsigned char { integer, fixed4, scientific, seconds };

enum class InRunTable : unsigned char { no, yes };  // a column of summary.csv

#define SINKLAB_RUN_NUMBERS(ALWAYS, WHEN_DEFINED)                                                                      \
  ALWAYS(train_loss, no, scientific, "training loss of the last step's batch")                                         \
  ALWAYS(eval_mse, yes, scientific,                                                                                    \
         "mean squared error on the fixed evaluation set (vector tasks; null for token tasks)")                        \
  ALWAYS(eval_max_abs_error, yes, scientific, "largest abs(prediction - target) on the evaluation set (vector tasks)") \
  ALWAYS(wall_seconds, yes, seconds,                                                                                   \
         "wall time of the command that finished the run (a resumed run: its last piece, run.json `resumed`)")         \
  WHEN_DEFINED(eval_loss, yes, fixed4, "token tasks: evaluation cross-entropy in nats over the scored positions")      \
  WHEN_DEFINED(eval_accuracy, yes, fixed4, "token tasks: share of scored positions predicted correctly")               \
  WHEN_DEFINED(eval_active_loss, yes, fixed4, "token tasks: eval_loss over the rows the task flags active")            \
  WHEN_DEFINED(eval_active_accuracy, yes, fixed4, "token tasks: eval_accuracy over the active rows")                   \
  WHEN_DEFINED(eval_no_op_loss, yes, fixed4, "token tasks: eval_loss over the no-op rows")                             \
  WHEN_DEFINED(eval_no_op_accuracy, yes, fixed4, "token tasks: eval_accuracy over the no-op rows")                     \
  ALWAYS(sink_rate, no, fixed4, "share of heads that are sink heads (sink_head) in the final evaluation")              \
  ALWAYS(uniform_baseline, no, fixed4, "alpha_0 of uniform causal attention at the evaluation length, H_T / T")        \
  WHEN_DEFINED(sink_score_mean, yes, fixed4,                                                                           \
               "mean over heads of sink_score in the final evaluation: sink_rate without "                             \
               "the eps threshold, to compare runs whose heads sit near eps")                                          \
  WHEN_DEFINED(gu_sink_rate, yes, fixed4,                                                                              \
               "text_lm: Gu's Sink_1^eps, the share of heads with alpha_0 > eps on 100 "                               \
               "training windows of T 64 without BOS (summary.json's extreme_tokens.gu_no_bos)")                       \
  WHEN_DEFINED(gu_sink_rate_bos, yes, fixed4, "text_lm: the same on windows that start with BOS")                      \
  WHEN_DEFINED(sink_rate_slot, yes, fixed4,                                                                            \
               "key-bias models: Gu's Sink*, the share of heads whose key-bias slot "                                  \
               "takes > eps of a row on the evaluation inputs")                                                        \
  WHEN_DEFINED(massive_ratio_max, yes, fixed4,                                                                         \
               "largest massive-activation ratio max abs(h) / median abs(h) of any "                                   \
               "block's output on the evaluation inputs (Sun et al.)")                                                 \
  WHEN_DEFINED(sink_excess_mean, yes, fixed4,                                                                          \
               "mean over heads of sink_excess in the final evaluation: how far the "                                  \
               "heads' sink share sits above uniform attention's (0) towards all on the sink keys (1); the headline, " \
               "sink_rate's eps count second")

#define SINKLAB_STEP_NUMBERS(ALWAYS, WHEN_DEFINED)                                                          \
  ALWAYS(loss, no, scientific, "training loss of the step's batch")                                         \
  ALWAYS(max_abs_error, no, scientific,                                                                     \
         "largest abs(prediction - target) on the step's batch (vector tasks; null for token tasks)")       \
  ALWAYS(lr, no, scientific, "learning rate used by the step")                                              \
  ALWAYS(grad_norm, no, scientific, "global gradient norm before clipping")                                 \
  ALWAYS(steps_per_second, no, fixed4, "training speed since the previous line")                            \
  WHEN_DEFINED(accuracy, no, fixed4, "token tasks: share of the batch's scored tokens predicted correctly") \
  WHEN_DEFINED(eval_mse, no, scientific, "on lines where an evaluation ran: as in summary.json")            \
  WHEN_DEFINED(eval_max_abs_error, no, scientific, "on lines where an evaluation ran")                      \
  WHEN_DEFINED(eval_loss, no, fixed4, "on lines where an evaluation ran (token tasks)")                     \
  WHEN_DEFINED(eval_accuracy, no, fixed4, "on lines where an evaluation ran (token tasks)")

// One entry of a list, for code that iterates it. `Holder` is RunSummary or MetricsRecord
// (run_files/run_summary.h); exactly one of the two members is set.
template <typename Holder>
struct RunNumber {
  const char* name;
  InRunTable in_run_table;
  NumberFormat format;
  const char* doc;
  double Holder::*always;
  std::optional<double> Holder::*when_defined;

  constexpr bool optional() const { return when_defined != nullptr; }
  // The value, NaN when unset.
  double value(const Holder& h) const {
    if (always != nullptr) return h.*always;
    const std::optional<double>& v = h.*when_defined;
    return v ? *v : std::numeric_limits<double>::quiet_NaN();
  }
};

}  // namespace sinklab
