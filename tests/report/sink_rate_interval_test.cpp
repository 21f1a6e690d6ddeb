// The sink rate of a sweep is a proportion (sink heads out of heads), so the report gives it a
// binomial interval inside [0, 1]; a t interval over per-seed 0/1 rates gave "0.3333 +/- 1.4342".
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "report/report.h"
#include "report/report_runs.h"
#include "report/report_summary_tables.h"
#include "tests/report/fake_run.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::FakeRunSpec;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// One variant whose seeds differ in kind: seed 0 sinks on BOS (softmax-like rows), seeds 1 and 2 have
// all-zero no-op rows (relu-like): one sink head out of three.
FakeRunSpec seed_of_mixed_variant(uint64_t seed) {
  FakeRunSpec s;
  s.name = "1x1_mixed";
  s.normalizer = seed == 0 ? "softmax" : "relu";
  s.seq_len = 16;
  s.seed = seed;
  return s;
}

TEST(SinkRateInterval, ASweepsSinkRateIsAProportionWithAClopperPearsonInterval) {
  const auto dir = sinklab::testing::fresh_test_dir();
  sinklab::testing::write_fake_sweep(dir, "mixed", {{"m0", seed_of_mixed_variant(0)}, {"m1", seed_of_mixed_variant(1)},
                                                    {"m2", seed_of_mixed_variant(2)}});
  const ReportRuns runs = load_sweep_dir(dir);
  const std::vector<VariantSummary> variants = summarize_variants(runs);
  ASSERT_EQ(variants.size(), 1u);
  EXPECT_EQ(variants[0].sink_rate.successes, 1);
  EXPECT_EQ(variants[0].sink_rate.trials, 3);

  const std::string text = variant_table_text(runs);
  EXPECT_TRUE(contains(text, "0.3333 [0.0084, 0.9057]")) << text;
  EXPECT_FALSE(contains(text, "+/- 1.4342")) << text;
  EXPECT_TRUE(contains(text, "Clopper-Pearson")) << text;  // the Intervals note says which interval it is

  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const std::string md = sinklab::testing::read_text(dir / "report" / "summary.md");
  EXPECT_TRUE(contains(md, "| 0.3333 [0.0084, 0.9057] |")) << md;  // row mass, a mean, keeps its t interval
}

}  // namespace
}  // namespace sinklab
