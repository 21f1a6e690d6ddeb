// A sweep's report shows its seeds as a band: BOS mass vs step per variant (mean and min-max over the
// seeds), and the distribution of the sink onset steps (a strip plot and a table).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "report/report.h"
#include "run_files/run_summary.h"
#include "tests/report/fake_run.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::FakeRunSpec;
using sinklab::testing::read_text;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

FakeRunSpec seed_of(const std::string& normalizer, uint64_t seed) {
  FakeRunSpec s;
  s.name = "1x1_" + normalizer;
  s.normalizer = normalizer;
  s.seq_len = 16;
  s.seed = seed;
  s.jitter = 0.3f;  // seeds that differ visibly
  return s;
}

std::filesystem::path tiny_sweep() {
  const auto dir = sinklab::testing::fresh_test_dir();
  sinklab::testing::write_fake_sweep(dir, "tiny", {{"sm0", seed_of("softmax", 0)}, {"sm1", seed_of("softmax", 1)},
                                                   {"sm2", seed_of("softmax", 2)}, {"re0", seed_of("relu", 0)},
                                                   {"re1", seed_of("relu", 1)}});
  return dir;
}

// The line of a figure's data file for `step` in its first block.
std::string line_at_step(const std::string& dat, int64_t step) {
  std::istringstream in(dat);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(std::to_string(step) + " ", 0) == 0) return line;
  return {};
}

TEST(SeedBandFigures, BosBandIsTheMeanAndRangeOfTheSeedsLogs) {
  const auto dir = tiny_sweep();
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const auto figs = dir / "report" / "figures";
  const std::string dat = read_text(figs / "bos_band_1x1_softmax.dat");
  // Step 100 by hand from the three seeds' metrics.jsonl.
  double lo = 1e9, hi = -1e9, sum = 0;
  for (const char* id : {"sm0", "sm1", "sm2"})
    for (const MetricsRecord& m : read_metrics(dir / "runs" / id / "metrics.jsonl"))
      if (m.step == 100) {
        const double v = m.heads.at(0).bos_mass_nontrigger_mean;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
      }
  double mean = 0, low = 0, high = 0;
  int n = 0;
  long long step = 0;
  const std::string line = line_at_step(dat, 100);
  ASSERT_EQ(std::sscanf(line.c_str(), "%lld %lf %lf %lf %d", &step, &mean, &low, &high, &n), 5) << dat;
  EXPECT_EQ(n, 3);
  EXPECT_NEAR(mean, sum / 3, 1e-6);
  EXPECT_NEAR(low, lo, 1e-6);
  EXPECT_NEAR(high, hi, 1e-6);
  EXPECT_LT(low, high);  // the seeds differ: a band, not a line
  const std::string gp = read_text(figs / "bos_band_1x1_softmax.gp");
  EXPECT_TRUE(contains(gp, "filledcurves")) << gp;
  EXPECT_TRUE(std::filesystem::exists(figs / "bos_band_1x1_relu.gp"));
  const std::string html = read_text(dir / "report" / "index.html");
  EXPECT_TRUE(contains(html, "figures/bos_band_1x1_softmax.png")) << html;
}

TEST(SeedBandFigures, OnsetStepsAreDrawnAndTabulatedPerVariant) {
  const auto dir = tiny_sweep();
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const auto out = dir / "report";
  // The onsets the runs recorded, by variant (each run has one head).
  int softmax_onsets = 0, relu_onsets = 0;
  for (const char* id : {"sm0", "sm1", "sm2"})
    softmax_onsets += read_run_summary(dir / "runs" / id / "summary.json").heads.at(0).sink_onset_step_50.has_value();
  for (const char* id : {"re0", "re1"})
    relu_onsets += read_run_summary(dir / "runs" / id / "summary.json").heads.at(0).sink_onset_step_50.has_value();
  ASSERT_EQ(softmax_onsets, 3);
  ASSERT_EQ(relu_onsets, 0);
  const std::string md = read_text(out / "summary.md");
  EXPECT_TRUE(contains(md, "Sink onset steps")) << md;
  EXPECT_TRUE(contains(md, "| 1x1_softmax | 3/3 |")) << md;
  EXPECT_TRUE(contains(md, "| 1x1_relu | 0/2 |")) << md;
  const std::string dat = read_text(out / "figures" / "onset_steps.dat");
  std::istringstream first_block(dat.substr(0, dat.find("\n\n\n")));
  int dots = 0;
  for (std::string line; std::getline(first_block, line);) dots += !line.empty() && line[0] != '#';
  EXPECT_EQ(dots, 3) << dat;  // one per softmax seed; relu has none
  EXPECT_TRUE(contains(read_text(out / "index.html"), "figures/onset_steps.png"));
  const std::string gp = read_text(out / "figures" / "onset_steps.gp");
  int softmax_90 = 0;  // jitter 0.3 keeps the fake softmax rows near 0.85: no 0.9 onset expected, but counted
  for (const char* id : {"sm0", "sm1", "sm2"})
    softmax_90 += read_run_summary(dir / "runs" / id / "summary.json").heads.at(0).sink_onset_step_90.has_value();
  EXPECT_TRUE(contains(gp, "\"3/3 | " + std::to_string(softmax_90) + "/3\"")) << gp;  // counts above each variant
  EXPECT_TRUE(contains(gp, "\"0/2 | 0/2\"")) << gp;
}

TEST(SeedBandFigures, RenderWithGnuplot) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const auto dir = tiny_sweep();
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = true, .log = &log});
  const auto figs = dir / "report" / "figures";
  for (const char* fig : {"bos_band_1x1_softmax", "bos_band_1x1_relu", "onset_steps"}) {
    EXPECT_GT(std::filesystem::file_size(figs / (std::string(fig) + ".png")), 1000u) << fig << "\n" << log.str();
    EXPECT_TRUE(std::filesystem::exists(figs / (std::string(fig) + ".svg"))) << fig;
  }
}

}  // namespace
}  // namespace sinklab
