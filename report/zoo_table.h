#pragma once
// The zoo comparison table of a sweep whose variants name a sink class (docs/compare.md): one row per
// variant, grouped under its class heading, with the run facts (median over seeds), the per-head
// statistics (mean over heads and seeds), the predicted outcome from the sweep file and the measured
// one: the class's acceptance gate (report/zoo_gates.h) over every seed.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "report/report_runs.h"
#include "report/report_table.h"
#include "report/sink_class.h"
#include "report/zoo_run_facts.h"

namespace sinklab {

struct ZooVariant {
  std::string variant;                  // the aggregation label
  std::optional<SinkClass> sink_class;  // none: the sweep file gave no class for it
  std::string predicted;
  int total = 0, failed = 0, diverged = 0;  // runs listed; without a summary; diverged
  std::vector<ZooRunFacts> runs;            // the usable runs (finished, not diverged), in sweep order
};

// True when some run of the sweep has a sink class: then the report shows the zoo table.
bool has_sink_classes(const ReportRuns& runs);

// The variants in class order (S, V, Z, C, G, U, then those without a class), sweep order inside a
// class. (A summary.json with a mistyped statistic never gets here: the run is failed, naming it.)
std::vector<ZooVariant> collect_zoo_variants(const ReportRuns& runs);

// The full table for summary.md and index.html; notes: what each column is, eps / T / H_T/T, the gates.
Table zoo_table(const ReportRuns& runs, const std::vector<ZooVariant>& variants);
// A narrow version for the terminal: stopped, steps, eval max error, BOS@nt, measured.
Table zoo_text_table(const std::vector<ZooVariant>& variants);

}  // namespace sinklab
