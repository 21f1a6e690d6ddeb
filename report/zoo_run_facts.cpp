#include "report/zoo_run_facts.h"

#include <cmath>

namespace sinklab {
namespace {

double step_or_nan(const std::optional<int64_t>& step) { return step ? static_cast<double>(*step) : kNotRecorded; }

ZooHeadFacts head_facts(const HeadSinkStats& s) {
  ZooHeadFacts h;
  h.layer = s.layer;
  h.head = s.head;
  h.bos_nontrigger = s.bos_mass_nontrigger_mean;
  h.mass_nontrigger = s.mass_nontrigger_mean;
  h.sink_score = s.sink_score;
  // Files from before content_mass_nontrigger_mean hold the same number as nonbos_mass_nontrigger_mean.
  h.content_nontrigger =
      std::isnan(s.content_mass_nontrigger_mean) ? s.nonbos_mass_nontrigger_mean : s.content_mass_nontrigger_mean;
  h.virtual_nontrigger = s.virtual_mass_nontrigger_mean;
  h.effective_content = s.effective_content_mass;
  h.value_weighted_bos = s.value_weighted_bos_share;
  h.sink_score_abs = s.sink_score_abs;
  h.gate_nontrigger = s.gate_nontrigger_mean;
  h.onset_50 = step_or_nan(s.sink_onset_step_50);
  h.onset_90 = step_or_nan(s.sink_onset_step_90);
  h.bos_by_row = s.bos_mass_by_row;
  return h;
}

}  // namespace

ZooRunFacts zoo_run_facts(const RunSummary& summary) {
  ZooRunFacts facts;
  facts.seed = summary.seed;
  facts.stopped = summary.reached_stop_rule;
  facts.stop_reason = summary.stop_reason;
  facts.steps = summary.steps;
  facts.eval_max_abs_error = summary.eval_max_abs_error;
  facts.layers = summary.layers;
  facts.heads_per_layer = summary.heads_per_layer;
  facts.seq_len = summary.seq_len;
  facts.eval_trigger = summary.eval_trigger;
  for (const HeadSinkStats& stats : summary.heads) facts.heads.push_back(head_facts(stats));
  return facts;
}

}  // namespace sinklab
