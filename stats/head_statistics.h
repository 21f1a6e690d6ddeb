#pragma once
// The per-(layer, head) attention statistics, each described once in SINKLAB_HEAD_STATISTICS: its
// name (also its JSON key in summary.json and metrics.jsonl), the rows it reads, the value it takes
// on one row, how those values reduce to one number, its column in the terminal head table (or none), whether
// older run files may lack it, and one line of documentation. Everything else iterates the list: the
// HeadSinkStats fields, the accumulator (stats/sink_statistics.h), the JSON reader and writer
// (run_files/run_summary.cpp), the head table printed by `sinklab train` (run_files/head_table.cpp) and the
// table in docs/analysis.md (stats/head_statistics_markdown.h).
//
// Rows are picked by position roles (core/observe/position_roles.h). In the trigger task BOS is the
// only sink key, the trigger row the only active row and every other row 1..T-1 a no-op row, so
// "nontrigger" in a name means no-op rows, "trigger" active rows and "bos" the sink keys.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "stats/run_numbers.h"

namespace sinklab {

// Which query rows of a sample a statistic reads.
enum class StatisticRows : uint8_t {
  no_op,     // rows flagged kNoOpRow
  active,    // rows flagged kActiveRow
  non_sink,  // every row whose own position is not a sink key
  all,       // every row 0..T-1
};

// The value of row i of A; keys are the visible ones, k <= i.
enum class RowValue : uint8_t {
  sink_mass,           // sum of A[i,k] over the sink keys
  row_mass,            // sum of A[i,k] over all keys (1 for softmax; free for relu)
  non_sink_mass,       // row_mass - sink_mass
  entropy,             // -sum p log p with p = A[i,k] / row_mass; 0 when row_mass <= 0
  keys_mean,           // mean of A[i,k] over the n non-sink keys; a row with n = 0 is skipped
  keys_max_deviation,  // max over the n non-sink keys of |A[i,k] - 1/n|; a row with n = 0 is skipped
  sink_share,          // sink_mass / row_mass (renormalized, Gu et al. 2024); 0 when row_mass <= 0
  // From here on values that also read |A| or the per-row facts of stats/sink_statistics.h (RowFacts):
  sink_share_abs,         // sum of |A[i,k]| over the sink keys / sum of |A[i,k]|; 0 when that sum is 0
  gated_non_sink_mass,    // non_sink_mass x the row's output gate (x 1 without a gate)
  virtual_mass,           // the row's virtual mass (NaN where the normalizer has none); undefined without the array
  value_weighted_sink_share,    // sum over sink keys of |A[i,k]| ||u_k|| / sum over keys of |A[i,k]| ||u_k||,
                                // u_k = W_O^h W_V^h x_k; undefined without value norms or when the sum is 0
  value_weighted_sink_share_v,  // the same with ||v_k|| = ||W_V^h x_k||
  value_weighted_zero,          // 1 when that sum (with ||u_k||) is 0, else 0; undefined without value norms
  gate,                         // the row's output gate; undefined without a gate
  sink_excess,  // (sink_share - u) / (1 - u), u = visible sink keys / visible keys (uniform attention's share):
                // 0 for uniform attention, 1 for all on the sink keys; undefined when every visible key is one
};

// How the row values become one number. A number whose rows never occurred is NaN (null in JSON).
enum class Reduction : uint8_t {
  mean,         // over all (sample, row) pairs
  min,          // smallest over all (sample, row) pairs
  sample_mean,  // each sample's mean over its rows, then the mean over samples
  above_eps,    // a flag: the sample_mean is above the sink-head threshold eps, and so is the sample_mean of
                // the sink mass itself (not renormalized): a share of an almost empty row is no sink
};

// Statistics added after run files were first written are read as null from files that lack them.
enum class InFiles : uint8_t { required, null_when_absent };

// NUMBER(name, rows, value, reduction, column, in_files, in_run_table, doc) is a double, FLAG(...) a
// bool; in_run_table (stats/run_numbers.h) puts it, per head, in the report's summary.csv. Keep the
// names: they are the JSON keys that reports and users read.
#define SINKLAB_HEAD_STATISTICS(NUMBER, FLAG)                                                                         \
  NUMBER(bos_mass_nontrigger_mean, no_op, sink_mass, mean, "BOS@non-trig", required, yes,                             \
         "attention parked on the sink keys by rows that have nothing to do")                                         \
  NUMBER(bos_mass_nontrigger_min, no_op, sink_mass, min, "BOS min", required, no,                                     \
         "the weakest such row: a sink holds on every row only if this is high too")                                  \
  NUMBER(mass_nontrigger_mean, no_op, row_mass, mean, "row mass", required, yes,                                      \
         "how much attention a no-op row spends at all: 1 for softmax, near 0 for a relu head that switches off")     \
  NUMBER(nonbos_mass_nontrigger_mean, no_op, non_sink_mass, mean, "non-BOS", required, no,                            \
         "what a no-op row spends on ordinary keys; the same number as content_mass_nontrigger_mean, kept for older " \
         "files and readers")                                                                                         \
  NUMBER(trigger_bos, active, sink_mass, mean, "trig BOS", required, no,                                              \
         "attention the working row still parks on the sink")                                                         \
  NUMBER(trigger_keys_mean, active, keys_mean, mean, "trig keys", required, no,                                       \
         "the trigger row averages keys 1..j: ideally 1/j")                                                           \
  NUMBER(trigger_keys_max_deviation, active, keys_max_deviation, mean, "trig dev", required, no,                      \
         "the spread around that ideal average (a mean of per-row maxima)")                                           \
  NUMBER(sink_score, all, sink_share, sample_mean, "alpha_0", required, yes,                                          \
         "alpha_0 of Gu et al. 2024; renormalizing each row makes it usable for unnormalized (relu) attention")       \
  FLAG(sink_head, all, sink_share, above_eps, "sink", required, no,                                                   \
       "`sink_score > eps` and the sink keys' own mass on the same rows > eps: a share of rows that spend mass")      \
  NUMBER(entropy_nontrigger, no_op, entropy, mean, "entropy", required, yes,                                          \
         "how spread a no-op row's attention is (natural log): 0 for a one-hot row")                                  \
  NUMBER(bos_mass_mean, non_sink, sink_mass, mean, "BOS@all", null_when_absent, no,                                   \
         "sink mass over every row, for tasks without no-op rows")                                                    \
  NUMBER(mass_mean, non_sink, row_mass, mean, "mass@all", null_when_absent, no,                                       \
         "row mass over every row, for tasks without no-op rows")                                                     \
  NUMBER(entropy_mean, non_sink, entropy, mean, "entropy@all", null_when_absent, no,                                  \
         "entropy over every row, for tasks without no-op rows")                                                      \
  NUMBER(content_mass_nontrigger_mean, no_op, non_sink_mass, mean, "", null_when_absent, no,                          \
         "content mass: what a no-op row spends on ordinary (non-sink) keys")                                         \
  NUMBER(effective_content_mass, no_op, gated_non_sink_mass, mean, "", null_when_absent, no,                          \
         "content mass that reaches the output past the head's gate (= content mass without a gate)")                 \
  NUMBER(virtual_mass_nontrigger_mean, no_op, virtual_mass, mean, "virtual", null_when_absent, no,                    \
         "mass a no-op row sends to no key: a virtual slot (softmax_n, sink logit, key bias), 1 - row sum "           \
         "(softpick, clipped; negative possible), 1 - gate (gated), 0 for simplex rows; null for unnormalized rows")  \
  NUMBER(value_weighted_bos_share, no_op, value_weighted_sink_share, mean, "vBOS@nt", null_when_absent, no,           \
         "the sink keys' share of what a no-op row adds to the output, weights times value norms norm(W_O W_V x_k); " \
         "null without value norms")                                                                                  \
  NUMBER(value_weighted_bos_share_v, no_op, value_weighted_sink_share_v, mean, "", null_when_absent, no,              \
         "the same share with norm(W_V x_k), before W_O")                                                             \
  NUMBER(value_weighted_zero_rows, no_op, value_weighted_zero, mean, "", null_when_absent, no,                        \
         "fraction of no-op rows that add nothing to the output (left out of value_weighted_bos_share)")              \
  NUMBER(sink_score_abs, all, sink_share_abs, sample_mean, "", null_when_absent, no,                                  \
         "sink_score on abs(A) / row sum of abs(A), for weights of either sign")                                      \
  NUMBER(gate_nontrigger_mean, no_op, gate, mean, "gate@nt", null_when_absent, no,                                    \
         "output gate of no-op rows (gated attention); null without a gate")                                          \
  NUMBER(gate_trigger_mean, active, gate, mean, "", null_when_absent, no,                                             \
         "output gate of active rows; null without a gate")                                                           \
  NUMBER(gate_mean, non_sink, gate, mean, "gate@all", null_when_absent, no,                                           \
         "output gate over every row, for tasks without no-op rows (a language model's gated heads); null without "   \
         "a gate")                                                                                                    \
  NUMBER(mass_trigger_mean, active, row_mass, mean, "", null_when_absent, no,                                         \
         "how much attention the working rows spend: with mass_nontrigger_mean, shows a relu head that is on "        \
         "where there is work and off elsewhere")                                                                     \
  NUMBER(sink_excess, all, sink_excess, sample_mean, "excess", null_when_absent, yes,                                 \
         "the sink share above uniform attention's, (alpha - u) / (1 - u) per row: 0 uniform, 1 all on the sink "     \
         "keys, < 0 below uniform; graded where sink_head is a yes/no at eps")

struct HeadSinkStats {
  int layer = 0, head = 0;
#define SINKLAB_NUMBER_FIELD(name, ...) double name = 0.0;
#define SINKLAB_FLAG_FIELD(name, ...) bool name = false;
  SINKLAB_HEAD_STATISTICS(SINKLAB_NUMBER_FIELD, SINKLAB_FLAG_FIELD)
#undef SINKLAB_NUMBER_FIELD
#undef SINKLAB_FLAG_FIELD
  // Evaluation only: written in summary.json's heads[], not per step in metrics.jsonl (size).
  // [T]: mean over samples of the sink mass of row i, every row 0..T-1; empty when unknown (older files).
  std::vector<double> bos_mass_by_row;
  // Training steps from which bos_mass_nontrigger_mean on the logged training batches stays >= 0.5
  // (>= 0.9) at every later logged step (stats/sink_onset.h); nullopt when it does not (or unknown).
  std::optional<int64_t> sink_onset_step_50, sink_onset_step_90;
};

// One entry of the list, for code that iterates it.
struct HeadStatistic {
  const char* name;
  StatisticRows rows;
  RowValue value;
  Reduction reduction;
  const char* column;  // header in the terminal head table; "" = JSON only (the table stays narrow)
  InFiles in_files;
  InRunTable in_run_table;  // a column of summary.csv, per head
  const char* doc;
  double HeadSinkStats::*number;  // the field of a number, null for a flag
  bool HeadSinkStats::*flag;      // the field of a flag, null for a number

  constexpr bool is_flag() const { return flag != nullptr; }
  constexpr bool in_head_table() const { return column[0] != '\0'; }
};

inline constexpr std::array kHeadStatistics = {
#define SINKLAB_NUMBER_ENTRY(name, rows, value, reduction, column, in_files, in_run_table, doc)                    \
  HeadStatistic{#name, StatisticRows::rows, RowValue::value, Reduction::reduction, column, InFiles::in_files,      \
                InRunTable::in_run_table, doc, &HeadSinkStats::name, nullptr},
#define SINKLAB_FLAG_ENTRY(name, rows, value, reduction, column, in_files, in_run_table, doc)                      \
  HeadStatistic{#name, StatisticRows::rows, RowValue::value, Reduction::reduction, column, InFiles::in_files,      \
                InRunTable::in_run_table, doc, nullptr, &HeadSinkStats::name},
    SINKLAB_HEAD_STATISTICS(SINKLAB_NUMBER_ENTRY, SINKLAB_FLAG_ENTRY)
#undef SINKLAB_NUMBER_ENTRY
#undef SINKLAB_FLAG_ENTRY
};

// A flag has no null: it reads all rows, which every sample has, only a flag compares with eps, and
// a flag must be in every run file (a missing one could only be read as a made-up false).
constexpr bool flags_are_never_null() {
  for (const HeadStatistic& s : kHeadStatistics) {
    if (s.is_flag() != (s.reduction == Reduction::above_eps)) return false;
    if (s.is_flag() && (s.rows != StatisticRows::all || s.in_files != InFiles::required)) return false;
  }
  return true;
}
static_assert(flags_are_never_null(),
              "a FLAG reduces above_eps over all rows and is required in files; a NUMBER does not use above_eps");

// above_eps pairs a renormalized share with the sink mass it was renormalized from.
constexpr bool flags_read_the_sink_share() {
  for (const HeadStatistic& s : kHeadStatistics)
    if (s.is_flag() && s.value != RowValue::sink_share) return false;
  return true;
}
static_assert(flags_read_the_sink_share(), "a FLAG reads sink_share (above_eps also reads the sink mass of its rows)");

}  // namespace sinklab
