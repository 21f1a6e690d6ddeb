#include "report/zoo_gates.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/report_runs.h"

namespace sinklab {
namespace {

constexpr double kSinkBos = 0.99;          // S, V: the no-op rows' mass is (almost) all on BOS (or the slot)
constexpr double kSinkBosAnyHead = 0.9;    // ... in a multi-head model, one head carrying the sink suffices
constexpr double kEmptyRow = 0.01;         // Z, U, G: no-op rows (almost) empty
constexpr double kUnsolvedError = 0.02;    // U: the 1x1 model cannot get below this eval max error
constexpr double kClipSlope = 0.03;        // C: BOS_i >= 1 - 0.03 i - 0.01 (gamma = -0.03, zeta = 1)
constexpr double kClipTolerance = 0.01;

using Kind = GateVerdict::Kind;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

GateVerdict pass() { return {Kind::pass, ""}; }
GateVerdict fail(std::string detail) { return {Kind::fail, std::move(detail)}; }
GateVerdict not_applicable(std::string why) { return {Kind::not_applicable, std::move(why)}; }

std::string head_name(const ZooRunFacts& run, const ZooHeadFacts& h) {
  return run.single_head() ? "" : head_label(h.layer, h.head) + " ";
}

// S and V: the sink mass of a head (V adds the virtual slot), >= 0.99 on a one-head model, and for at
// least one head >= 0.9 on a multi-head one.
GateVerdict sink_gate(const ZooRunFacts& run, bool with_virtual) {
  if (!run.stopped) return not_applicable("did not stop");
  const char* what = with_virtual ? "BOS+virtual@nt" : "BOS@nt";
  double best = -1.0;
  const ZooHeadFacts* best_head = nullptr;
  for (const auto& h : run.heads) {
    // A virtual mass that is undefined for the normalizer adds nothing: BOS alone must carry the sink.
    const double mass =
        h.bos_nontrigger + (with_virtual && std::isfinite(h.virtual_nontrigger) ? h.virtual_nontrigger : 0.0);
    if (std::isnan(mass)) continue;
    if (!best_head || mass > best) {
      best = mass;
      best_head = &h;
    }
  }
  if (!best_head) return not_applicable("no BOS@nt recorded");
  const double bound = run.single_head() ? kSinkBos : kSinkBosAnyHead;
  if (best >= bound) return pass();
  return fail((run.single_head() ? std::string(what) : std::string("best head ") + head_name(run, *best_head) + what) +
              " " + num(best) + " < " + num(bound));
}

GateVerdict zero_gate(const ZooRunFacts& run) {
  if (!run.stopped) return not_applicable("did not stop");
  for (const auto& h : run.heads) {
    if (std::isnan(h.bos_nontrigger) || std::isnan(h.mass_nontrigger))
      return not_applicable("no BOS@nt or no-op mass recorded");
    if (h.bos_nontrigger > kEmptyRow)
      return fail(head_name(run, h) + "BOS@nt " + num(h.bos_nontrigger) + " > " + num(kEmptyRow));
    if (h.mass_nontrigger > kEmptyRow)
      return fail(head_name(run, h) + "nt mass " + num(h.mass_nontrigger) + " > " + num(kEmptyRow));
  }
  return pass();
}

GateVerdict unsolvable_gate(const ZooRunFacts& run) {
  if (!run.single_head()) return not_applicable("the U gate is for 1x1 models");
  if (run.stopped || run.stop_reason != "max_steps")
    return fail("stopped at step " + std::to_string(run.steps) + " (" + run.stop_reason + ")");
  if (std::isnan(run.eval_max_abs_error)) return not_applicable("no eval max error recorded");
  if (run.eval_max_abs_error < kUnsolvedError)
    return fail("eval max error " + num(run.eval_max_abs_error) + " < " + num(kUnsolvedError));
  for (const auto& h : run.heads) {
    if (std::isnan(h.mass_nontrigger)) return not_applicable("no no-op mass recorded");
    if (h.mass_nontrigger > kEmptyRow) return fail("nt mass " + num(h.mass_nontrigger) + " > " + num(kEmptyRow));
  }
  return pass();
}

// The first no-op row of head h below its clipped bound, as a failure text; empty when all hold.
std::string clipped_row_failure(const ZooRunFacts& run, const ZooHeadFacts& h) {
  const int rows = static_cast<int>(std::min<std::size_t>(h.bos_by_row.size(), static_cast<std::size_t>(run.seq_len)));
  for (int i = 1; i < rows; ++i) {
    if (i == run.eval_trigger) continue;  // the trigger row does the work, it parks nothing
    const double bound = 1.0 - kClipSlope * i - kClipTolerance;
    const double bos = h.bos_by_row[static_cast<std::size_t>(i)];
    if (std::isnan(bos) || bos < bound)
      return head_name(run, h) + "BOS_" + std::to_string(i) + " " + num(bos) + " < " + num(bound);
  }
  return "";
}

GateVerdict clipped_gate(const ZooRunFacts& run) {
  std::string first_failure;
  bool any_recorded = false;
  for (const auto& h : run.heads) {
    if (h.bos_by_row.empty()) continue;
    any_recorded = true;
    const std::string failure = clipped_row_failure(run, h);
    if (failure.empty()) {
      if (!run.single_head()) return pass();  // one head holding the partial sink is enough
    } else if (first_failure.empty()) {
      first_failure = failure;
    }
  }
  if (!any_recorded) return not_applicable("no bos_mass_by_row recorded");
  return first_failure.empty() ? pass() : fail(first_failure);
}

GateVerdict gated_gate(const ZooRunFacts& run) {
  if (!run.stopped) return not_applicable("did not stop");
  for (const auto& h : run.heads) {
    if (std::isnan(h.effective_content)) return not_applicable("no effective_content_mass recorded");
    if (h.effective_content > kEmptyRow)
      return fail(head_name(run, h) + "effective content " + num(h.effective_content) + " > " + num(kEmptyRow));
  }
  return pass();
}

}  // namespace

GateVerdict evaluate_zoo_gate(SinkClass sink_class, const ZooRunFacts& run) {
  switch (sink_class) {
    case SinkClass::S: return sink_gate(run, false);
    case SinkClass::V: return sink_gate(run, true);
    case SinkClass::Z: return zero_gate(run);
    case SinkClass::C: return clipped_gate(run);
    case SinkClass::G: return gated_gate(run);
    case SinkClass::U: return unsolvable_gate(run);
  }
  return not_applicable("unknown class");
}

std::string zoo_gate_text(SinkClass sink_class) {
  switch (sink_class) {
    case SinkClass::S: return "S, stopped runs: BOS@nt >= 0.99 (multi-head: some head >= 0.9)";
    case SinkClass::V: return "V, stopped runs: BOS@nt + virtual@nt >= 0.99 (multi-head: some head >= 0.9)";
    case SinkClass::Z: return "Z, stopped runs: BOS@nt <= 0.01 and no-op row mass <= 0.01 on every head";
    case SinkClass::C:
      return "C: BOS_i >= 1 - 0.03 i - 0.01 on every no-op row i (bos_mass_by_row; multi-head: some head)";
    case SinkClass::G: return "G, stopped runs: effective content mass <= 0.01 on every head";
    case SinkClass::U: return "U, 1x1 runs: hit max_steps, eval max error >= 0.02, no-op row mass <= 0.01";
  }
  return "";
}

std::string zoo_gate_cell(const std::vector<SeedVerdict>& seeds, int diverged) {
  int passed = 0, failed = 0, skipped = 0;
  std::string failures;
  std::map<std::string, int> reasons;  // why a gate did not apply -> how many seeds
  for (const auto& s : seeds) {
    switch (s.verdict.kind) {
      case Kind::pass: ++passed; break;
      case Kind::fail:
        ++failed;
        failures +=
            (failures.empty() ? "" : "; ") + std::string("seed ") + std::to_string(s.seed) + " " + s.verdict.detail;
        break;
      case Kind::not_applicable:
        ++skipped;
        ++reasons[s.verdict.detail];
        break;
    }
  }
  const std::string total = std::to_string(seeds.size());
  std::string cell;
  if (failed > 0) cell = "FAIL " + std::to_string(failed) + "/" + total + ": " + failures;
  else if (passed > 0) cell = "pass " + std::to_string(passed) + "/" + total;
  else if (seeds.empty() && diverged == 0) cell = "—";
  std::string why;
  for (const auto& [reason, count] : reasons) why += (why.empty() ? "" : ", ") + std::to_string(count) + " " + reason;
  if (skipped > 0) cell += cell.empty() ? "n/a: " + why : "; n/a: " + why;
  if (diverged > 0) cell += (cell.empty() ? "" : "; ") + std::to_string(diverged) + " diverged";
  return cell;
}

}  // namespace sinklab
