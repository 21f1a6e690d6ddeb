// Means of shares over seeds keep their range: a variant whose seeds disagree (one softmax-like seed
// parks its no-op rows on BOS, two relu-like seeds switch them off) gave "0.3250 ± 1.3984" for BOS mass
// with Student's t; the table now shows the mean and its bootstrap interval, [lo, hi] inside [0, 1].
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "report/report_runs.h"
#include "report/report_summary_tables.h"
#include "tests/report/fake_run.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::FakeRunSpec;

FakeRunSpec seed_of_mixed_variant(uint64_t seed) {
  FakeRunSpec s;
  s.name = "1x1_mixed";
  s.normalizer = seed == 0 ? "softmax" : "relu";
  s.seq_len = 16;
  s.seed = seed;
  return s;
}

std::string cell(const Table& t, size_t row, const std::string& column) {
  for (size_t c = 0; c < t.header.size(); ++c)
    if (t.header[c] == column) return t.rows.at(row).at(c);
  ADD_FAILURE() << "no column " << column;
  return {};
}

// "m [lo, hi]" with 0 <= lo <= m <= hi <= 1.
void expect_unit_interval(const std::string& text) {
  double m = -1, lo = -1, hi = -1;
  ASSERT_EQ(std::sscanf(text.c_str(), "%lf [%lf, %lf]", &m, &lo, &hi), 3) << text;
  EXPECT_GE(lo, 0.0) << text;
  EXPECT_LE(lo, m) << text;
  EXPECT_LE(m, hi) << text;
  EXPECT_LE(hi, 1.0) << text;
}

TEST(BoundedIntervalTable, SharesOverDisagreeingSeedsStayInsideTheUnitRange) {
  const auto dir = sinklab::testing::fresh_test_dir();
  sinklab::testing::write_fake_sweep(dir, "mixed", {{"m0", seed_of_mixed_variant(0)}, {"m1", seed_of_mixed_variant(1)},
                                                    {"m2", seed_of_mixed_variant(2)}});
  const std::vector<VariantSummary> variants = summarize_variants(load_sweep_dir(dir));
  const Table heads = head_table(variants);
  ASSERT_EQ(heads.rows.size(), 1u);
  for (const char* column : {"BOS@non-trigger", "row mass", "sink score"}) expect_unit_interval(cell(heads, 0, column));
  // The three seeds' BOS masses by hand: about 0.975 (softmax-like rows put U(0, 0.05) off BOS), 0 and 0;
  // a bootstrap mean of 3 draws can be all zeros (p = (2/3)^3 = 0.30), so the interval starts at 0.
  double m = 0, lo = -1, hi = -1;
  ASSERT_EQ(std::sscanf(cell(heads, 0, "BOS@non-trigger").c_str(), "%lf [%lf, %lf]", &m, &lo, &hi), 3);
  EXPECT_EQ(lo, 0.0);
  EXPECT_NEAR(hi, m * 3, 1e-3);  // all three draws the softmax seed: P = 1/27 = 0.037 > 0.025
}

TEST(BoundedIntervalTable, SinkExcessLeadsTheSinkRate) {
  const auto dir = sinklab::testing::fresh_test_dir();
  sinklab::testing::write_fake_sweep(dir, "mixed",
                                     {{"m0", seed_of_mixed_variant(0)}, {"m1", seed_of_mixed_variant(1)}});
  const ReportRuns runs = load_sweep_dir(dir);
  const std::vector<VariantSummary> variants = summarize_variants(runs);
  const std::vector<Table> tables = variant_tables(runs, variants);
  ASSERT_EQ(tables.size(), 1u);
  const auto& header = tables[0].header;
  const auto excess = std::find(header.begin(), header.end(), "sink excess");
  const auto rate = std::find(header.begin(), header.end(), "sink rate");
  ASSERT_NE(excess, header.end());
  EXPECT_EQ(excess + 1, rate);  // the graded measure first, the eps count second
  const Table text = variant_text_table(variants);
  EXPECT_NE(std::find(text.header.begin(), text.header.end(), "sink excess"), text.header.end());
  EXPECT_EQ(variants[0].sink_excess.n, 2);
}

}  // namespace
}  // namespace sinklab
