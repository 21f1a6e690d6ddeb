#pragma once
// The acceptance gates of the normalizer zoo, one per sink class (docs/compare.md, "Sink classes and
// gates"), evaluated on one run, and the verdict over a variant's seeds as the zoo table shows it.
//   S stopped: BOS@nt >= 0.99 (a multi-head model: at least one head >= 0.9)
//   V stopped: BOS@nt + virtual mass@nt >= 0.99 (multi-head: at least one head >= 0.9)
//   Z stopped: BOS@nt <= 0.01 and no-op row mass <= 0.01, every head
//   U, 1x1 only: ran to max_steps, eval max error >= 0.02, no-op row mass <= 0.01
//   C: BOS_i >= 1 - 0.03 i - 0.01 on every no-op row i of bos_mass_by_row (multi-head: of one head)
//   G stopped: effective content mass <= 0.01, every head
// A gate that does not apply to a run (it did not stop, a statistic it needs was not recorded, U on
// more than one head) is neither a pass nor a failure: it is counted and said why.
#include <cstdint>
#include <string>
#include <vector>

#include "report/sink_class.h"
#include "report/zoo_run_facts.h"

namespace sinklab {

struct GateVerdict {
  enum class Kind { pass, fail, not_applicable };
  Kind kind = Kind::not_applicable;
  std::string detail;  // fail: the failing number against its bound; not applicable: why
};

GateVerdict evaluate_zoo_gate(SinkClass sink_class, const ZooRunFacts& run);

// The gate in one line, for the table's notes.
std::string zoo_gate_text(SinkClass sink_class);

struct SeedVerdict {
  uint64_t seed = 0;
  GateVerdict verdict;
};

// The table's "measured" cell: "pass 5/5", "FAIL 1/5: seed 3 BOS@nt 0.9521 < 0.99", "n/a 5/5: did not
// stop", with not-applicable and diverged seeds counted after a ';'.
std::string zoo_gate_cell(const std::vector<SeedVerdict>& seeds, int diverged);

}  // namespace sinklab
