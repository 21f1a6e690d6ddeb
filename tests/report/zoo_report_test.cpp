// The zoo comparison in a sweep report: variants with sink classes get one table grouped by class with
// predicted vs measured outcomes, and the side-by-side figures.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "report/report.h"
#include "tests/report/fake_run.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::FakeRunSpec;
using sinklab::testing::FakeSweepRun;
using sinklab::testing::fresh_test_dir;
using sinklab::testing::read_text;
using sinklab::testing::write_fake_sweep;
using sinklab::testing::write_text;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

FakeRunSpec spec(const std::string& name, const std::string& normalizer, int layers, int heads, uint64_t seed) {
  FakeRunSpec s;
  s.name = name;
  s.normalizer = normalizer;
  s.layers = layers;
  s.heads = heads;
  s.seq_len = 16;
  s.seed = seed;
  return s;
}

// Sets per-head statistics of a fake run's summary.json as the zoo statistics would be written.
void set_head_fields(const std::filesystem::path& run_dir, const nlohmann::json& fields) {
  nlohmann::json summary = nlohmann::json::parse(read_text(run_dir / "summary.json"));
  for (auto& head : summary["heads"])
    for (const auto& [key, value] : fields.items()) head[key] = value;
  write_text(run_dir / "summary.json", summary.dump(2));
}

// Removes them again: a summary.json from before the zoo statistics.
void erase_zoo_fields(const std::filesystem::path& run_dir) {
  nlohmann::json summary = nlohmann::json::parse(read_text(run_dir / "summary.json"));
  for (auto& head : summary["heads"])
    for (const char* key : {"content_mass_nontrigger_mean", "virtual_mass_nontrigger_mean", "effective_content_mass",
                            "value_weighted_bos_share", "sink_score_abs", "gate_nontrigger_mean", "sink_onset_step_50",
                            "sink_onset_step_90", "bos_mass_by_row"})
      head.erase(key);
  write_text(run_dir / "summary.json", summary.dump(2));
}

// Written in sweep order U, Z, S: the table must still read S, Z, U.
std::vector<FakeSweepRun> zoo_1x1() {
  return {{"u0", spec("relu_seq_len", "relu", 1, 1, 0), "U", "no stop, eta 0.19"},
          {"z0", spec("relu", "relu", 1, 1, 0), "Z", "stops, empty rows"},
          {"z1", spec("relu", "relu", 1, 1, 1), "Z", "stops, empty rows"},
          {"s0", spec("softmax", "softmax", 1, 1, 0), "S", "stops; BOS@nt 0.9998"},
          {"s1", spec("softmax", "softmax", 1, 1, 1), "S", "stops; BOS@nt 0.9998"}};
}

TEST(ZooReport, OneTableGroupedByClassWithPredictedAndMeasured) {
  const auto dir = fresh_test_dir();
  auto runs = zoo_1x1();
  FakeRunSpec diverged = spec("softmax", "softmax", 1, 1, 2);
  diverged.diverged = true;
  runs.push_back({"s2", diverged, "S", "stops; BOS@nt 0.9998"});
  write_fake_sweep(dir, "zoo", runs);
  const nlohmann::json undefined = {{"virtual_mass_nontrigger_mean", nullptr}, {"gate_nontrigger_mean", nullptr}};
  set_head_fields(dir / "runs/z0", undefined);
  set_head_fields(dir / "runs/z1", undefined);
  set_head_fields(dir / "runs/z0", {{"sink_score", 0.1},
                                    {"content_mass_nontrigger_mean", 0.002},
                                    {"effective_content_mass", 0.001},
                                    {"value_weighted_bos_share", 0.5},
                                    {"sink_score_abs", 0.25},
                                    {"sink_onset_step_50", 100},
                                    {"sink_onset_step_90", 150}});
  set_head_fields(dir / "runs/z1", {{"sink_score", 0.2},
                                    {"content_mass_nontrigger_mean", 0.004},
                                    {"effective_content_mass", 0.003},
                                    {"value_weighted_bos_share", 0.7},
                                    {"sink_score_abs", 0.35},
                                    {"sink_onset_step_50", nullptr},
                                    {"sink_onset_step_90", 250}});
  erase_zoo_fields(dir / "runs/u0");
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});

  const std::string md = read_text(dir / "report/summary.md");
  EXPECT_TRUE(contains(md, "### Zoo comparison by sink class")) << md;
  EXPECT_TRUE(
      contains(md,
               "| variant | steps (median) | stopped | eval max error (median) | BOS@nt | content@nt | virtual@nt | "
               "eff. content | v-weighted BOS share | sink score | sink score \\|A\\| | gate@nt | onset 0.5 (median) | "
               "onset 0.9 (median) | predicted | measured |"))
      << md;
  // Steps 300 and 310 (median 305); statistics averaged over seeds; an onset only one head reached says so.
  EXPECT_TRUE(contains(md,
                       "| relu | 305 | 2/2 | 4.00e-03 | 0.0000 | 0.0030 | — | 0.0020 | 0.6000 | 0.1500 | 0.3000 | "
                       "— | 100 (1/2) | 200 | stops, empty rows | pass 2/2 |"))
      << md;
  // The fake softmax parks about 0.975 on BOS: below the S gate, with the number; the diverged seed is counted.
  EXPECT_TRUE(contains(md, "| softmax | 305 | 2/3 (1 diverged) |")) << md;
  EXPECT_TRUE(contains(md, "| stops; BOS@nt 0.9998 | FAIL 2/2: seed 0 BOS@nt 0.9")) << md;
  EXPECT_TRUE(contains(md, "; 1 diverged |")) << md;
  // Summaries from before the zoo statistics: not recorded, not zero.
  EXPECT_TRUE(contains(md, "| relu_seq_len | 300 | 1/1 | 4.00e-03 | 0.0000 | 0.0000 | — | — | — |")) << md;
  EXPECT_TRUE(contains(md, "| no stop, eta 0.19 | FAIL 1/1: seed 0 stopped at step 300 (max_abs_error) |")) << md;

  const auto s = md.find("| **S: simplex rows (BOS sink necessary)** |");
  const auto z = md.find("| **Z: all-zero rows possible (no sink needed)** |");
  const auto u = md.find("| **U: cannot make the trigger coefficient 1/j (1x1 cannot stop)** |");
  ASSERT_NE(s, std::string::npos) << md;
  ASSERT_NE(z, std::string::npos);
  ASSERT_NE(u, std::string::npos);
  EXPECT_LT(s, md.find("| softmax | 305"));
  EXPECT_LT(md.find("| softmax | 305"), z);
  EXPECT_LT(z, md.find("| relu | 305"));
  EXPECT_LT(md.find("| relu | 305"), u);
  EXPECT_TRUE(contains(md, "T = 16 (uniform-causal baseline alpha_0 = H_T/T = 0.2113)")) << md;
  EXPECT_TRUE(contains(md, "eps = 0.3")) << md;
  EXPECT_GT(md.find("Intervals:"), md.find("### Per variant")) << md;  // the zoo table shows no intervals
  EXPECT_TRUE(contains(md, "U, 1x1 runs: hit max_steps, eval max error >= 0.02, no-op row mass <= 0.01")) << md;

  const std::string html = read_text(dir / "report/index.html");
  EXPECT_TRUE(contains(html, "<tr class=\"section\"><th colspan=\"16\">S: simplex rows (BOS sink necessary)</th></tr>"))
      << html;
  EXPECT_LT(html.find("Zoo comparison by sink class"), html.find("Per variant (mean"));
  EXPECT_TRUE(contains(html, "src=\"figures/zoo_attention.png\""));
  EXPECT_TRUE(contains(html, "src=\"figures/zoo_bos_vs_step.png\""));

  const std::string text = variant_table_text(dir);
  EXPECT_TRUE(contains(text, "measured (class gate)")) << text;
  EXPECT_TRUE(contains(text, "\nZ: all-zero rows possible (no sink needed)\nrelu ")) << text;
}

TEST(ZooReport, FiguresShowEveryVariantSideBySideAndBosMassPerVariant) {
  const auto dir = fresh_test_dir();
  write_fake_sweep(dir, "zoo", zoo_1x1());
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const auto figs = dir / "report/figures";

  const std::string heat = read_text(figs / "zoo_attention.gp");
  EXPECT_TRUE(contains(heat, "set multiplot layout 1,3")) << heat;  // one panel per variant
  EXPECT_LT(heat.find("\"softmax (S)"), heat.find("\"relu (Z)"));  // a title may end in its scale's bracket
  EXPECT_LT(heat.find("\"relu (Z)"), heat.find("\"relu_seq_len (U)"));
  // A relu panel (rows that do not sum to 1) gets its own colour scale, softmax keeps [0, 1]; the
  // caption says which (it used to draw every panel on [0, 1], relu black on black).
  const size_t relu_panel = heat.find("\"relu (Z) [0, ");
  ASSERT_NE(relu_panel, std::string::npos) << heat;
  EXPECT_NE(heat.find("\"softmax (S)\""), std::string::npos) << heat;
  EXPECT_TRUE(contains(heat, "set cbrange [0:1]")) << heat;
  // The zoo figure replaces the per-shape attention figures of other sweeps.
  EXPECT_FALSE(std::filesystem::exists(figs / "attention_1x1_T16_mean.gp"));

  const std::string bos = read_text(figs / "zoo_bos_vs_step.gp");
  EXPECT_TRUE(contains(bos, "lc rgb \"#1f77b4\" dt 1 title \"softmax (S)\"")) << bos;  // colour per variant,
  EXPECT_TRUE(contains(bos, "lc rgb \"#ff7f0e\" dt 3 title \"relu (Z)\"")) << bos;     // dash pattern per class
  EXPECT_TRUE(contains(bos, "lc rgb \"#2ca02c\" dt (16,6) title \"relu_seq_len (U)\"")) << bos;
  // Seed 0 of each variant, mean over heads; the fake softmax parks most of its mass on BOS.
  const std::string data = read_text(figs / "zoo_bos_vs_step.dat");
  EXPECT_TRUE(contains(data, "# softmax seed 0\n0 0.9")) << data;
  EXPECT_TRUE(contains(data, "# relu seed 0\n0 0\n")) << data;

  const std::string md = read_text(dir / "report/summary.md");
  EXPECT_TRUE(contains(md, "- [zoo_attention](figures/zoo_attention.png): ")) << md;
  EXPECT_TRUE(contains(md, "[0, largest value of the panel]")) << md;
  EXPECT_TRUE(contains(md, "- [zoo_bos_vs_step](figures/zoo_bos_vs_step.png): ")) << md;
}

TEST(ZooReport, MultiHeadVariantsPutTheirHeadsInARowTwoVariantsPerRow) {
  const auto dir = fresh_test_dir();
  write_fake_sweep(dir, "zoo", {{"a", spec("softmax", "softmax", 2, 2, 0), "S"},
                                {"b", spec("softmax_n", "softmax", 2, 2, 0), "V"},
                                {"c", spec("relu", "relu", 2, 2, 0), "Z"}});
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const std::string heat = read_text(dir / "report/figures/zoo_attention.gp");
  EXPECT_TRUE(contains(heat, "set multiplot layout 2,8")) << heat;
  EXPECT_LT(heat.find("\"softmax (S) L0H0\""), heat.find("\"softmax (S) L1H1\""));
  EXPECT_LT(heat.find("\"softmax (S) L1H1\""), heat.find("\"softmax_n (V) L0H0\""));
  // The S gate on a multi-head model asks for one sink head >= 0.9, which the fake softmax has.
  EXPECT_TRUE(contains(read_text(dir / "report/summary.md"), "| pass 1/1 |"));
}

TEST(ZooReport, SweepsWithoutClassesKeepTheirReport) {
  const auto dir = fresh_test_dir();
  write_fake_sweep(dir, "plain", {{"s0", spec("softmax", "softmax", 1, 1, 0)}, {"r0", spec("relu", "relu", 1, 1, 0)}});
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const std::string md = read_text(dir / "report/summary.md");
  EXPECT_FALSE(contains(md, "Zoo comparison")) << md;
  EXPECT_TRUE(std::filesystem::exists(dir / "report/figures/attention_1x1_T16_mean.gp"));
  EXPECT_FALSE(std::filesystem::exists(dir / "report/figures/zoo_attention.gp"));
}

TEST(ZooReport, AClassThatIsNotASinkClassNamesTheField) {
  const auto dir = fresh_test_dir();
  write_fake_sweep(dir, "zoo", {{"s0", spec("softmax", "softmax", 1, 1, 0), "Q"}});
  std::ostringstream log;
  try {
    write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
    FAIL() << "class Q was accepted";
  } catch (const ReportError& e) {
    EXPECT_TRUE(contains(e.what(), "sweep.json: runs[0].class: 'Q' is not a sink class (one of S, V, Z, C, G, U)"))
        << e.what();
  }
}

}  // namespace
}  // namespace sinklab
