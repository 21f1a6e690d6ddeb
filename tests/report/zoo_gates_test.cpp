#include "report/zoo_gates.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sinklab {
namespace {

using Kind = GateVerdict::Kind;

ZooHeadFacts head(int layer, int h, double bos, double mass) {
  ZooHeadFacts f;
  f.layer = layer;
  f.head = h;
  f.bos_nontrigger = bos;
  f.mass_nontrigger = mass;
  return f;
}

// A finished 1x1 run on T = 16 with evaluation trigger 7.
ZooRunFacts one_head(double bos, double mass, bool stopped = true) {
  ZooRunFacts r;
  r.stopped = stopped;
  r.stop_reason = stopped ? "max_abs_error" : "max_steps";
  r.steps = stopped ? 864 : 20000;
  r.eval_max_abs_error = stopped ? 4e-3 : 0.054;
  r.seq_len = 16;
  r.eval_trigger = 7;
  r.heads = {head(0, 0, bos, mass)};
  return r;
}

ZooRunFacts two_by_two(std::vector<double> bos) {
  ZooRunFacts r = one_head(0, 1);
  r.layers = r.heads_per_layer = 2;
  r.heads.clear();
  for (int i = 0; i < 4; ++i) r.heads.push_back(head(i / 2, i % 2, bos[static_cast<size_t>(i)], 1.0));
  return r;
}

TEST(ZooGates, SimplexNeedsBosOnOneHeadModelsAndOneSinkHeadOnMultiHeadOnes) {
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::S, one_head(0.9998, 1)).kind, Kind::pass);
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::S, one_head(0.99, 1)).kind, Kind::pass);  // the bound itself passes
  const GateVerdict low = evaluate_zoo_gate(SinkClass::S, one_head(0.9532, 1));
  EXPECT_EQ(low.kind, Kind::fail);
  EXPECT_EQ(low.detail, "BOS@nt 0.9532 < 0.99");
  const GateVerdict not_stopped = evaluate_zoo_gate(SinkClass::S, one_head(0.5, 1, /*stopped=*/false));
  EXPECT_EQ(not_stopped.kind, Kind::not_applicable);
  EXPECT_EQ(not_stopped.detail, "did not stop");

  EXPECT_EQ(evaluate_zoo_gate(SinkClass::S, two_by_two({0.2, 0.91, 0.1, 0.3})).kind, Kind::pass);
  const GateVerdict none = evaluate_zoo_gate(SinkClass::S, two_by_two({0.2, 0.85, 0.1, 0.3}));
  EXPECT_EQ(none.kind, Kind::fail);
  EXPECT_EQ(none.detail, "best head L0H1 BOS@nt 0.85 < 0.9");
}

TEST(ZooGates, VirtualSlotCountsTheSlotWithBosAndIgnoresAnUndefinedOne) {
  ZooRunFacts r = one_head(0.987, 0.9965);
  r.heads[0].virtual_nontrigger = 0.0035;
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::V, r).kind, Kind::pass);  // 0.987 + 0.0035 >= 0.99
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::S, r).kind, Kind::fail);  // the same run read as simplex fails
  r.heads[0].virtual_nontrigger = kNotRecorded;
  const GateVerdict v = evaluate_zoo_gate(SinkClass::V, r);
  EXPECT_EQ(v.kind, Kind::fail);
  EXPECT_EQ(v.detail, "BOS+virtual@nt 0.987 < 0.99");
}

TEST(ZooGates, ZeroRowsNeedEveryHeadEmptyOnNoOpRows) {
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::Z, one_head(0.0, 2e-4)).kind, Kind::pass);
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::Z, one_head(0.02, 0.02)).detail, "BOS@nt 0.02 > 0.01");
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::Z, one_head(0.0, 0.3)).detail, "nt mass 0.3 > 0.01");
  ZooRunFacts two = two_by_two({0, 0, 0, 0});
  for (auto& h : two.heads) h.mass_nontrigger = 0.001;
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::Z, two).kind, Kind::pass);
  two.heads[3].mass_nontrigger = 0.5;
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::Z, two).detail, "L1H1 nt mass 0.5 > 0.01");
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::Z, one_head(0.6, 1, false)).kind, Kind::not_applicable);
}

TEST(ZooGates, UnsolvableAtOneByOneMustRunOutOfStepsWithALargeErrorAndEmptyRows) {
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::U, one_head(0, 0, /*stopped=*/false)).kind, Kind::pass);
  const GateVerdict solved = evaluate_zoo_gate(SinkClass::U, one_head(0, 0, /*stopped=*/true));
  EXPECT_EQ(solved.kind, Kind::fail);
  EXPECT_EQ(solved.detail, "stopped at step 864 (max_abs_error)");
  ZooRunFacts close = one_head(0, 0, false);
  close.eval_max_abs_error = 0.015;
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::U, close).detail, "eval max error 0.015 < 0.02");
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::U, one_head(0, 0.2, false)).detail, "nt mass 0.2 > 0.01");
  const GateVerdict multi = evaluate_zoo_gate(SinkClass::U, two_by_two({0, 0, 0, 0}));
  EXPECT_EQ(multi.kind, Kind::not_applicable);
  EXPECT_EQ(multi.detail, "the U gate is for 1x1 models");
}

// The calibration's clipped softmax (gamma -0.03, zeta 1): BOS 0.976 at i = 1 falling to 0.727 at i = 15,
// above the bound 1 - 0.03 i - 0.01 everywhere.
std::vector<double> clipped_rows() {
  std::vector<double> rows(16);
  for (int i = 0; i < 16; ++i) rows[static_cast<size_t>(i)] = i == 0 ? 1.0 : 0.976 - (0.976 - 0.727) * (i - 1) / 14.0;
  return rows;
}

TEST(ZooGates, ClippedChecksEveryNoOpRowAgainstItsBoundAndSkipsTheTrigger) {
  ZooRunFacts r = one_head(0.85, 0.9, /*stopped=*/false);
  r.heads[0].bos_by_row = clipped_rows();
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::C, r).kind, Kind::pass);
  r.heads[0].bos_by_row[7] = 0.0;  // the trigger row spends its mass on content: not a no-op row
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::C, r).kind, Kind::pass);
  r.heads[0].bos_by_row[3] = 0.80;  // bound at i = 3: 1 - 0.09 - 0.01 = 0.9
  const GateVerdict v = evaluate_zoo_gate(SinkClass::C, r);
  EXPECT_EQ(v.kind, Kind::fail);
  EXPECT_EQ(v.detail, "BOS_3 0.8 < 0.9");
  r.heads[0].bos_by_row.clear();  // a summary from before bos_mass_by_row
  const GateVerdict absent = evaluate_zoo_gate(SinkClass::C, r);
  EXPECT_EQ(absent.kind, Kind::not_applicable);
  EXPECT_EQ(absent.detail, "no bos_mass_by_row recorded");
}

TEST(ZooGates, ClippedOnMultiHeadModelsNeedsOneHeadHoldingThePartialSink) {
  ZooRunFacts r = two_by_two({0, 0, 0, 0});
  for (auto& h : r.heads) h.bos_by_row = std::vector<double>(16, 0.1);
  const GateVerdict none = evaluate_zoo_gate(SinkClass::C, r);
  EXPECT_EQ(none.kind, Kind::fail);
  EXPECT_EQ(none.detail, "L0H0 BOS_1 0.1 < 0.96");
  r.heads[2].bos_by_row = clipped_rows();
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::C, r).kind, Kind::pass);
}

TEST(ZooGates, GatedNeedsEveryHeadsEffectiveContentMassSmall) {
  ZooRunFacts r = one_head(0.9999, 1);
  r.heads[0].effective_content = 0.0001 * 0.35;
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::G, r).kind, Kind::pass);
  r.heads[0].effective_content = 0.05;
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::G, r).detail, "effective content 0.05 > 0.01");
  r.heads[0].effective_content = kNotRecorded;
  EXPECT_EQ(evaluate_zoo_gate(SinkClass::G, r).detail, "no effective_content_mass recorded");
}

TEST(ZooGates, TheCellCountsPassesFailuresAndSeedsTheGateDoesNotApplyTo) {
  const GateVerdict pass{Kind::pass, ""};
  const GateVerdict stuck{Kind::not_applicable, "did not stop"};
  EXPECT_EQ(zoo_gate_cell({{0, pass}, {1, pass}}, 0), "pass 2/2");
  EXPECT_EQ(
      zoo_gate_cell({{0, pass}, {1, {Kind::fail, "BOS@nt 0.95 < 0.99"}}, {2, {Kind::fail, "BOS@nt 0.9 < 0.99"}}}, 0),
      "FAIL 2/3: seed 1 BOS@nt 0.95 < 0.99; seed 2 BOS@nt 0.9 < 0.99");
  EXPECT_EQ(zoo_gate_cell({{0, pass}, {1, stuck}, {2, stuck}}, 1), "pass 1/3; n/a: 2 did not stop; 1 diverged");
  EXPECT_EQ(zoo_gate_cell({{0, stuck}}, 0), "n/a: 1 did not stop");
  EXPECT_EQ(zoo_gate_cell({}, 2), "2 diverged");
  EXPECT_EQ(zoo_gate_cell({}, 0), "—");
}

}  // namespace
}  // namespace sinklab
