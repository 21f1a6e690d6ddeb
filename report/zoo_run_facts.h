#pragma once
// What the zoo table (report/zoo_table.h) and its acceptance gates (report/zoo_gates.h) read from one
// run, taken from its RunSummary (the one reader, run_files/run_summary.h): a summary written before
// a statistic existed, or one where it is undefined for the normalizer (null), gives NaN, shown as
// "—", never an error.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "run_files/run_summary.h"

namespace sinklab {

inline constexpr double kNotRecorded = std::numeric_limits<double>::quiet_NaN();

struct ZooHeadFacts {
  int layer = 0, head = 0;
  double bos_nontrigger = kNotRecorded;      // bos_mass_nontrigger_mean
  double mass_nontrigger = kNotRecorded;     // mass_nontrigger_mean: the no-op rows' total mass
  double content_nontrigger = kNotRecorded;  // content_mass_nontrigger_mean (older files: nonbos_mass_nontrigger_mean)
  double virtual_nontrigger = kNotRecorded;  // virtual_mass_nontrigger_mean
  double effective_content = kNotRecorded;   // effective_content_mass
  double value_weighted_bos = kNotRecorded;  // value_weighted_bos_share
  double sink_score = kNotRecorded;          // sink_score (alpha_0 on A / row sum)
  double sink_score_abs = kNotRecorded;      // sink_score_abs (alpha_0 on |A| / sum |A|)
  double gate_nontrigger = kNotRecorded;     // gate_nontrigger_mean
  double onset_50 = kNotRecorded;            // sink_onset_step_50: a step, NaN when null or absent
  double onset_90 = kNotRecorded;            // sink_onset_step_90
  std::vector<double> bos_by_row;            // bos_mass_by_row, one number per query row; empty when absent
};

struct ZooRunFacts {
  uint64_t seed = 0;
  bool stopped = false;  // met the stop rule
  std::string stop_reason;
  int64_t steps = 0;
  double eval_max_abs_error = kNotRecorded;
  int layers = 1, heads_per_layer = 1, seq_len = 0, eval_trigger = 0;
  std::vector<ZooHeadFacts> heads;  // layer-major

  bool single_head() const { return layers * heads_per_layer == 1; }
};

ZooRunFacts zoo_run_facts(const RunSummary& summary);

}  // namespace sinklab
