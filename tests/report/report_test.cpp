#include "report/report.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <vector>

#include "report/gnuplot_runner.h"
#include "report/report_runs.h"
#include "report/report_summary_tables.h"
#include "run_files/npy.h"
#include "tests/report/fake_run.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::FakeRunSpec;
using sinklab::testing::fresh_test_dir;
using sinklab::testing::read_text;
using sinklab::testing::write_fake_run;
using sinklab::testing::write_fake_sweep;
using sinklab::testing::write_text;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

FakeRunSpec spec(const std::string& normalizer, int layers, int heads, uint64_t seed) {
  FakeRunSpec s;
  s.name = std::to_string(layers) + "x" + std::to_string(heads) + "_" + normalizer;
  s.normalizer = normalizer;
  s.layers = layers;
  s.heads = heads;
  s.seq_len = 16;
  s.seed = seed;
  return s;
}

// Injectable gnuplot stand-in: a shell script that records each script it is given.
std::filesystem::path fake_gnuplot(const std::filesystem::path& dir, int exit_code) {
  const auto path = dir / ("fake_gnuplot_" + std::to_string(exit_code));
  write_text(path, "#!/bin/sh\necho \"$*\" >> \"" + (dir / "calls.txt").string() +
                       "\"\necho 'line 3: some error' >&2\nexit " + std::to_string(exit_code) + "\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(Report, RunReportWritesTablesScriptsAndPage) {
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "run", spec("softmax", 2, 2, 0));
  std::ostringstream log;
  ReportOptions options;
  options.render = false;
  options.log = &log;
  write_run_report(dir / "run", options);

  const auto out = dir / "run" / "report";
  for (const char* f : {"summary.csv", "summary.md", "index.html"}) EXPECT_TRUE(std::filesystem::exists(out / f)) << f;
  // One heatmap figure per layer and kind; the fake softmax maps barely vary over the inputs, so no std figure.
  for (const char* fig : {"attention_L0_mean", "attention_L1_mean", "attention_L0_sample0", "attention_L1_sample0",
                          "loss_vs_step", "bos_vs_step"}) {
    EXPECT_TRUE(std::filesystem::exists(out / "figures" / (std::string(fig) + ".gp"))) << fig;
    EXPECT_TRUE(std::filesystem::exists(out / "figures" / (std::string(fig) + ".dat"))) << fig;
  }
  EXPECT_FALSE(std::filesystem::exists(out / "figures" / "attention_L0_std.gp"));
  const std::string md = read_text(out / "summary.md");
  EXPECT_TRUE(contains(md, "| 2x2_softmax | 1/1 | 300 (n=1) |")) << md;
  EXPECT_TRUE(contains(md, "L1H1 BOS@non-trigger")) << md;
  EXPECT_TRUE(contains(md, "eps = 0.3; T = 16 (uniform-causal baseline alpha_0 = H_T/T = 0.2113)")) << md;
  const std::string html = read_text(out / "index.html");
  EXPECT_TRUE(contains(html, "src=\"figures/attention_L0_mean.png\"")) << html;
  EXPECT_TRUE(contains(html, "figures/bos_vs_step.svg"));
  EXPECT_FALSE(contains(html, "http"));  // self-contained
  const std::string csv = read_text(out / "summary.csv");
  // A trigger run has no token-task numbers: their columns are left out, not written empty.
  EXPECT_TRUE(
      contains(csv,
               "id,variant,seed,status,steps,stop_reason,eval_mse,eval_max_abs_error,wall_seconds,sink_excess_mean,"
               "L0H0_bos_mass_nontrigger_mean,"))
      << csv;
  EXPECT_FALSE(contains(csv, "eval_loss")) << csv;
  EXPECT_TRUE(contains(csv, "L1H1_sink_score"));
}

// A softmax run whose attention varies over the inputs (up to half a row off BOS): mean on [0, 1], its
// rows being distributions, and std beside it on its own scale.
TEST(Report, SingleHeadRunShowsMeanAndStdSideBySide) {
  const auto dir = fresh_test_dir();
  FakeRunSpec s = spec("softmax", 1, 1, 0);
  s.jitter = 0.5f;
  write_fake_run(dir / "run", s);
  std::ostringstream log;
  write_run_report(dir / "run", {.output_dir = dir / "out", .gnuplot = "gnuplot", .render = false, .log = &log});
  const std::string gp = read_text(dir / "out" / "figures" / "attention.gp");
  EXPECT_TRUE(contains(gp, "set multiplot layout 1,2")) << gp;
  EXPECT_TRUE(contains(gp, "set cbrange [0:1]\n  set title \"mean\"")) << gp;
  EXPECT_TRUE(contains(gp, "set title \"std [0, ")) << gp;
  EXPECT_FALSE(contains(gp, "set cbrange [0:1]\n  set title \"std")) << gp;
  EXPECT_TRUE(contains(gp, "set terminal pngcairo"));
  EXPECT_TRUE(contains(gp, "set terminal svg"));
  EXPECT_TRUE(contains(read_text(dir / "out" / "summary.md"), "mean and std over the evaluation inputs, seed 0."));
}

// relu-like rows do not sum to 1 (non-trigger rows 0, the trigger row 1/8 per key): the panel gets
// [0, its largest value], said in its title and the caption, so it is not drawn dark on a [0, 1] scale;
// its std is 0 everywhere (every evaluation input has the same trigger), so only a caption line says so.
TEST(Report, RowsThatDoNotSumToOneGetTheirOwnScaleAndAFlatStdMapIsNotDrawn) {
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "run", spec("relu", 1, 1, 0));
  std::ostringstream log;
  write_run_report(dir / "run", {.output_dir = dir / "out", .gnuplot = "gnuplot", .render = false, .log = &log});
  const std::string gp = read_text(dir / "out" / "figures" / "attention.gp");
  EXPECT_TRUE(contains(gp, "set multiplot layout 1,1")) << gp;
  EXPECT_TRUE(contains(gp, "set cbrange [0:0.125]\n  set title \"mean [0, 0.125]\"")) << gp;
  EXPECT_FALSE(contains(gp, "[0:1]")) << gp;
  const std::string md = read_text(dir / "out" / "summary.md");
  EXPECT_TRUE(contains(
      md,
      "Colour scale per panel, [0, largest value of the panel] (the bracket in its title): the rows do not sum to 1."))
      << md;
  EXPECT_TRUE(contains(md, "Std map not drawn: its largest value is 0% of the mean map's largest (drawn from 5%)."))
      << md;
}

TEST(Report, LongRowMapsAreDrawnAtTheirPositionsAndAMapOfAnotherSizeIsSkipped) {
  const auto dir = fresh_test_dir();
  FakeRunSpec s = spec("softmax", 1, 1, 0);
  s.seq_len = 600;  // maps keep positions 0, 3, 6, ...: [200, 200]
  write_fake_run(dir / "run", s);
  ASSERT_EQ(read_npy(dir / "run" / "attention" / "layer0_head0_mean.npy").shape, (std::vector<int64_t>{200, 200}));
  std::ostringstream log;
  write_run_report(dir / "run", {.output_dir = dir / "out", .gnuplot = "gnuplot", .render = false, .log = &log});
  const std::string gp = read_text(dir / "out" / "figures" / "attention.gp");
  EXPECT_TRUE(contains(gp, "matrix using ($1*3):($2*3):3 with image")) << gp;
  EXPECT_TRUE(contains(gp, "set xrange [-1.5:598.5]")) << gp;
  EXPECT_TRUE(contains(gp, "key (positions 0, 3, 6, ...)")) << gp;
  EXPECT_EQ(log.str(), "");
  if (find_executable("gnuplot")) {  // gnuplot accepts the positions
    const std::string cmd = "cd '" + (dir / "out" / "figures").string() + "' && gnuplot attention.gp 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_GT(std::filesystem::file_size(dir / "out" / "figures" / "attention.png"), 1000u);
  }

  // A full [600, 600] map is not what T = 600 writes: skipped, saying which shape it expected.
  write_npy(dir / "run" / "attention" / "layer0_head0_mean.npy", std::vector<float>(600 * 600, 0.0f), {600, 600});
  std::ostringstream log2;
  write_run_report(dir / "run", {.output_dir = dir / "out2", .gnuplot = "gnuplot", .render = false, .log = &log2});
  EXPECT_TRUE(contains(log2.str(), "is not the [200, 200] map of T = 600")) << log2.str();
  EXPECT_FALSE(std::filesystem::exists(dir / "out2" / "figures" / "attention.gp"));
}

TEST(Report, SweepReportAggregatesSeedsAndListsFailedRuns) {
  const auto dir = fresh_test_dir();
  write_fake_sweep(dir, "paper", {{"sm0", spec("softmax", 1, 1, 0)}, {"sm1", spec("softmax", 1, 1, 1)},
                                  {"re0", spec("relu", 1, 1, 0)}, {"re1", spec("relu", 1, 1, 1)},
                                  {"re2", spec("relu", 1, 1, 2)}});
  write_text(dir / "runs" / "re1" / "summary.json", "{\"name\": \"1x1_relu\", ");  // corrupt
  std::filesystem::remove(dir / "runs" / "re2" / "summary.json");              // crashed before the end
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});

  const auto out = dir / "report";
  const std::string md = read_text(out / "summary.md");
  EXPECT_TRUE(contains(md, "| 1x1_softmax | 2/2 | 305 ± 64 |")) << md;  // steps 300, 310: t_{.975,1} * 5
  EXPECT_TRUE(contains(md, "| 1x1_relu | 1/3 | 300 (n=1) |")) << md;
  EXPECT_TRUE(contains(md, "### Failed runs")) << md;
  EXPECT_TRUE(contains(md, "| re1 | 1x1_relu | 1 |")) << md;
  EXPECT_TRUE(contains(md, "invalid JSON"));
  EXPECT_TRUE(contains(log.str(), "run re2 failed:")) << log.str();
  EXPECT_TRUE(contains(log.str(), "summary.json: cannot open"));

  const std::string csv = read_text(out / "summary.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 6);  // header + 5 runs, failed included
  EXPECT_TRUE(contains(csv, "re2,1x1_relu,2,failed,"));

  const std::string html = read_text(out / "index.html");
  for (const char* fig : {"attention_1x1_T16_mean", "loss_vs_step", "bos_dots",
                          "bos_vs_step_1x1_softmax", "bos_vs_step_1x1_relu"}) {
    EXPECT_TRUE(contains(html, std::string("figures/") + fig + ".png")) << fig;
    EXPECT_TRUE(std::filesystem::exists(out / "figures" / (std::string(fig) + ".gp"))) << fig;
  }
  EXPECT_TRUE(contains(html, "2 run(s) failed"));
  // softmax and relu of the same shape share one heatmap figure, side by side.
  const std::string gp = read_text(out / "figures" / "attention_1x1_T16_mean.gp");
  EXPECT_TRUE(contains(gp, "set multiplot layout 1,2")) << gp;
  EXPECT_TRUE(contains(gp, "\"1x1_softmax\"") && contains(gp, "\"1x1_relu [0, 0.125]\"")) << gp;
  // Neither variant's attention varies over the inputs enough for a std map: one caption line instead.
  EXPECT_FALSE(std::filesystem::exists(out / "figures" / "attention_1x1_T16_std.gp"));
  EXPECT_TRUE(
      contains(md,
               "Std maps not drawn: in every head the largest std over the evaluation inputs is below 5% of the mean "
               "map's largest value"))
      << md;

  const std::string text = variant_table_text(dir);
  EXPECT_TRUE(contains(text, "1x1_softmax  2/2")) << text;
  EXPECT_TRUE(contains(text, "FAILED re1")) << text;
}

TEST(Report, RendersPngAndSvgWithGnuplotFromAnyDirectory) {
  if (!find_executable("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "run", spec("softmax", 1, 1, 0));
  std::ostringstream log;
  write_run_report(dir / "run", {.output_dir = {}, .gnuplot = "gnuplot", .render = true, .log = &log});
  const auto figs = dir / "run" / "report" / "figures";
  for (const char* fig : {"attention", "loss_vs_step", "bos_vs_step"}) {
    EXPECT_GT(std::filesystem::file_size(figs / (std::string(fig) + ".png")), 1000u) << fig << "\n" << log.str();
    EXPECT_TRUE(contains(read_text(figs / (std::string(fig) + ".svg")), "<svg")) << fig;
  }
  EXPECT_EQ(log.str(), "");
  for (const auto& f : std::filesystem::directory_iterator(figs))  // renamed to their final names
    EXPECT_NE(f.path().extension(), ".tmp") << f.path();
  // The scripts locate their data from their own path, not the working directory.
  std::filesystem::remove(figs / "attention.png");
  const std::string cmd = "cd '" + (dir / "run").string() + "' && gnuplot report/figures/attention.gp";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_TRUE(std::filesystem::exists(figs / "attention.png"));
}

// gnuplot's temporary picture names and the pictures' final names: the temporary names are the render's own
// (random), so a FIFO at a name an earlier version used is never opened (gnuplot would block on it); one
// planted at a final name is never renamed over.
TEST(Report, GnuplotNeverWaitsOnOrReplacesAFifoAtAPictureName) {
  if (!find_executable("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
  const auto dir = fresh_test_dir();
  const auto script = dir / "fig.gp";
  write_text(script, "set terminal pngcairo size 64,64\nset output '" + (dir / "fig.png").string() +
                         "'.partial\nplot x\nset terminal svg size 64,64\nset output '" + (dir / "fig.svg").string() +
                         "'.partial\nplot x\nunset output\n");
  for (const char* name : {"fig.png.partial", "fig.png.tmp"}) ASSERT_EQ(::mkfifo((dir / name).c_str(), 0644), 0);
  std::ostringstream log;
  GnuplotRunner runner("gnuplot", log);
  EXPECT_TRUE(runner.render(script)) << log.str();
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "fig.png")) << log.str();
  for (const char* name : {"fig.png.partial", "fig.png.tmp"})
    EXPECT_EQ(std::filesystem::symlink_status(dir / name).type(), std::filesystem::file_type::fifo) << name;

  std::filesystem::remove(dir / "fig.svg");
  ASSERT_EQ(::mkfifo((dir / "fig.svg").c_str(), 0644), 0);
  std::ostringstream failing;
  GnuplotRunner again("gnuplot", failing);
  EXPECT_FALSE(again.render(script));
  EXPECT_EQ(std::filesystem::symlink_status(dir / "fig.svg").type(), std::filesystem::file_type::fifo);
  EXPECT_TRUE(contains(failing.str(), "fig.svg: is a FIFO")) << failing.str();
}

TEST(Report, MissingGnuplotLeavesScriptsAndSaysHowToRenderOnce) {
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "run", spec("softmax", 2, 1, 0));
  const auto empty_bin = dir / "empty_bin";
  std::filesystem::create_directories(empty_bin);
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", empty_bin.c_str(), 1);
  std::ostringstream log;
  write_run_report(dir / "run", {.output_dir = {}, .gnuplot = "gnuplot", .render = true, .log = &log});
  ::setenv("PATH", old_path.c_str(), 1);

  const auto figs = dir / "run" / "report" / "figures";
  const std::string expected = "gnuplot not found: render with `gnuplot " + (figs / "*.gp").string() + "`\n";
  EXPECT_EQ(log.str(), expected);  // exactly once, although there are five figures
  EXPECT_TRUE(std::filesystem::exists(figs / "attention_L0_mean.gp"));
  EXPECT_TRUE(std::filesystem::exists(figs / "attention_L0_mean.dat"));
  EXPECT_FALSE(std::filesystem::exists(figs / "attention_L0_mean.png"));
  EXPECT_TRUE(contains(read_text(dir / "run" / "report" / "index.html"), "gnuplot was not found"));
}

TEST(Report, InjectedGnuplotCommandRunsOncePerScriptAndFailuresAreReported) {
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "run", spec("softmax", 1, 1, 0));
  std::ostringstream log;
  write_run_report(dir / "run",
                   {.output_dir = {}, .gnuplot = fake_gnuplot(dir, 0).string(), .render = true, .log = &log});
  const std::string calls = read_text(dir / "calls.txt");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 3) << calls;  // attention, loss, bos
  // Written aside under the render's own temporary names (core/io/file_write.h), renamed when done.
  EXPECT_TRUE(std::regex_search(calls, std::regex("-e partial='\\.[0-9]+-[0-9a-f]{8}\\.tmp' "))) << calls;
  EXPECT_TRUE(contains(calls, "attention.gp"));
  EXPECT_EQ(log.str(), "");

  std::ostringstream failing;
  write_run_report(dir / "run",
                   {.output_dir = {}, .gnuplot = fake_gnuplot(dir, 3).string(), .render = true, .log = &failing});
  EXPECT_TRUE(contains(failing.str(), "gnuplot failed on")) << failing.str();
  EXPECT_TRUE(contains(failing.str(), "(exit 3)"));
  EXPECT_TRUE(contains(failing.str(), "line 3: some error"));
  EXPECT_TRUE(contains(read_text(dir / "run" / "report" / "index.html"), "3 figure(s) failed to render"));
}

TEST(Report, BadDirectoriesAreNamed) {
  const auto dir = fresh_test_dir();
  try {
    write_report(dir / "nope");
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_TRUE(contains(e.what(), "nope: not a directory")) << e.what();
  }
  try {
    write_report(dir);
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_TRUE(contains(e.what(), "neither a sweep directory")) << e.what();
  }
  write_text(dir / "sweep.json", R"({"name": "s", "runs": [{"id": "a", "seed": 0, "dir": "runs/a"}]})");
  try {
    write_sweep_report(dir);
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_TRUE(contains(e.what(), "sweep.json: runs[0].variant: missing field")) << e.what();
  }
  EXPECT_THROW(write_run_report(dir), ReportError);  // a sweep directory is not a run directory
  // A directory where sweep.json should be: named, not a raw "basic_filebuf::underflow".
  std::filesystem::remove(dir / "sweep.json");
  std::filesystem::create_directory(dir / "sweep.json");
  try {
    write_sweep_report(dir);
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_TRUE(contains(e.what(), (dir / "sweep.json").string() + ": is a directory")) << e.what();
  }
}

TEST(Report, SweepRunWithoutASeedOverrideTakesTheSeedFromItsSummary) {
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "runs" / "a", spec("softmax", 1, 1, 7));
  write_text(dir / "sweep.json",
             R"({"name": "s", "runs": [{"id": "a", "variant": "v", "seed": null, "dir": "runs/a"}]})");
  const ReportRuns runs = load_sweep_dir(dir);
  ASSERT_EQ(runs.runs.size(), 1u);
  EXPECT_TRUE(runs.runs[0].ok());
  EXPECT_EQ(runs.runs[0].seed, 7u);
}

// A run folder that is another seed's (copied or symlinked) must not be averaged twice, and sweep.json
// may not point the report at folders outside the sweep.
TEST(Report, ARunFolderOfAnotherSeedFailsAndDirsOutsideTheSweepAreRefused) {
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "runs" / "a0", spec("softmax", 1, 1, 0));
  std::filesystem::create_directory_symlink(dir / "runs" / "a0", dir / "runs" / "a1");
  write_text(dir / "sweep.json", R"({"name": "s", "runs": [
      {"id": "a0", "variant": "v", "seed": 0, "dir": "runs/a0"},
      {"id": "a1", "variant": "v", "seed": 1, "dir": "runs/a1"}]})");
  const ReportRuns runs = load_sweep_dir(dir);
  ASSERT_EQ(runs.runs.size(), 2u);
  EXPECT_TRUE(runs.runs[0].ok());
  EXPECT_FALSE(runs.runs[1].ok());
  EXPECT_TRUE(contains(runs.runs[1].error, "seed 0, but sweep.json planned seed 1 for a1")) << runs.runs[1].error;

  for (const char* outside : {"../elsewhere", "/tmp", "runs/../../x"}) {
    write_text(
        dir / "sweep.json",
        std::string(R"({"name": "s", "runs": [{"id": "a0", "variant": "v", "seed": 0, "dir": ")") + outside + "\"}]}");
    try {
      load_sweep_dir(dir);
      ADD_FAILURE() << outside << " was followed";
    } catch (const ReportError& e) {
      EXPECT_TRUE(contains(e.what(), "runs[0].dir: ")) << e.what();
      EXPECT_TRUE(contains(e.what(), "is not a folder inside the sweep folder")) << e.what();
    }
  }
}

TEST(Report, RunWithCorruptSummaryIsReportedNotFatal) {
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "run", spec("softmax", 1, 1, 0));
  write_text(dir / "run" / "summary.json", "[]");
  std::ostringstream log;
  write_run_report(dir / "run", {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  EXPECT_TRUE(contains(log.str(), "run run failed:")) << log.str();
  EXPECT_TRUE(contains(log.str(), "expected an object"));
  const std::string md = read_text(dir / "run" / "report" / "summary.md");
  EXPECT_TRUE(contains(md, "### Failed runs")) << md;
  // Metrics and maps are still there, so their figures are still made.
  EXPECT_TRUE(std::filesystem::exists(dir / "run" / "report" / "figures" / "loss_vs_step.gp"));
  EXPECT_TRUE(std::filesystem::exists(dir / "run" / "report" / "figures" / "attention.gp"));
}


FakeRunSpec diverged(FakeRunSpec s) {
  s.diverged = true;
  return s;
}

TEST(Report, DivergedRunsAreShownAndLeftOutOfEveryMean) {
  const auto dir = fresh_test_dir();
  // softmax: seeds 0 and 1 reach the stop rule, seed 2 diverges; relu: every seed diverges.
  write_fake_sweep(dir, "paper", {{"sm0", spec("softmax", 1, 1, 0)}, {"sm1", spec("softmax", 1, 1, 1)},
                                  {"sm2", diverged(spec("softmax", 1, 1, 2))}, {"re0", diverged(spec("relu", 1, 1, 0))},
                                  {"re1", diverged(spec("relu", 1, 1, 1))}});
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const auto out = dir / "report";

  const ReportRuns runs = load_sweep_dir(dir);
  const auto variants = summarize_variants(runs);
  ASSERT_EQ(variants.size(), 2u);
  const VariantSummary& sm = variants[0];
  EXPECT_EQ(sm.total, 3);
  EXPECT_EQ(sm.ok, 2);
  EXPECT_EQ(sm.diverged, 1);
  EXPECT_EQ(sm.steps.n, 2);
  EXPECT_DOUBLE_EQ(sm.steps.mean, 305.0);  // the ok seeds' 300 and 310 only
  EXPECT_DOUBLE_EQ(sm.eval_mse.mean, 3e-7);
  ASSERT_EQ(sm.heads.size(), 1u);
  EXPECT_EQ(sm.heads.begin()->second.bos.n, 2);
  EXPECT_EQ(variants[1].ok, 0);
  EXPECT_EQ(variants[1].diverged, 2);

  const std::string md = read_text(out / "summary.md");
  EXPECT_TRUE(contains(md, "| 1x1_softmax | 2/3 (1 diverged) | 305 ± 64 |")) << md;
  // No run of relu finished, so nothing says which loss its task has: no loss column in its table.
  EXPECT_TRUE(contains(md, "| 1x1_relu | 0/2 (2 diverged) | all diverged | all diverged |")) << md;
  EXPECT_TRUE(contains(md, "| 2/2 seeds |")) << md;  // sink head in n of the seeds that did not diverge
  EXPECT_FALSE(contains(md, "### Failed runs")) << md;  // diverged is not failed
  EXPECT_FALSE(contains(md, "nan")) << md;

  const std::string csv = read_text(out / "summary.csv");
  EXPECT_TRUE(contains(csv, "sm2,1x1_softmax,2,diverged,300,non_finite,,,")) << csv;
  EXPECT_TRUE(contains(csv, "loss is nan at step 300")) << csv;  // what went non-finite, in the error column
  std::string csv_without_reason = csv;
  for (auto at = csv_without_reason.find("loss is nan"); at != std::string::npos;
       at = csv_without_reason.find("loss is nan"))
    csv_without_reason.erase(at, 11);
  EXPECT_FALSE(contains(csv_without_reason, "nan")) << csv;

  const std::string text = variant_table_text(runs);
  EXPECT_TRUE(contains(text, "1x1_softmax  2/3 (1 diverged)")) << text;
  EXPECT_TRUE(contains(text, "all diverged")) << text;
  EXPECT_FALSE(contains(text, "nan")) << text;
  EXPECT_FALSE(contains(text, "FAILED")) << text;

  const std::string html = read_text(out / "index.html");
  EXPECT_TRUE(contains(html, "3 run(s) diverged")) << html;
  EXPECT_FALSE(contains(html, ">nan")) << html;
  // Plots: the BOS dots hold the two ok softmax seeds only; no heatmap or loss curve of a diverged run.
  const std::string dots = read_text(out / "figures" / "bos_dots.dat");
  const auto dot_block = dots.substr(0, dots.find("\n\n\n"));
  EXPECT_EQ(std::count(dot_block.begin(), dot_block.end(), '\n'), 3) << dots;  // 2 comment lines, then 2 dots
  const std::string loss = read_text(out / "figures" / "loss_vs_step.dat");
  EXPECT_FALSE(contains(loss, "1x1_relu")) << loss;
  EXPECT_FALSE(contains(html, "bos_vs_step_1x1_relu")) << html;
}

// Its own report shows where the run diverged: a log-scale plot leaves the non-finite loss out, so
// without the mark the curve would look like a run that simply stopped.
TEST(Report, ADivergedRunsLossCurveMarksTheStepItDiverged) {
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "run", diverged(spec("softmax", 1, 1, 0)));
  std::ostringstream log;
  write_run_report(dir / "run", {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const auto out = dir / "run" / "report";
  const std::string gp = read_text(out / "figures" / "loss_vs_step.gp");
  EXPECT_TRUE(contains(gp, "set arrow from 300, graph 0 to 300, graph 1 nohead")) << gp;
  EXPECT_TRUE(contains(gp, "set label \"diverged at step 300\"")) << gp;
  EXPECT_TRUE(contains(gp, "set xrange [*:315]")) << gp;  // 5 % past the mark, so the border does not hide it
  EXPECT_TRUE(contains(gp, "loss (diverged)")) << gp;
  const std::string html = read_text(out / "index.html");
  EXPECT_TRUE(contains(html, "diverged at step 300 (loss is nan at step 300)")) << html;

  write_fake_run(dir / "ok", spec("softmax", 1, 1, 0));  // a finished run's plot has no such mark
  write_run_report(dir / "ok", {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  EXPECT_FALSE(contains(read_text(dir / "ok" / "report" / "figures" / "loss_vs_step.gp"), "diverged")) << "ok run";
}

TEST(Report, ReportFilesReplaceASymlinkInsteadOfWritingThroughIt) {
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "run", spec("softmax", 1, 1, 0));
  write_text(dir / "victim.txt", "keep me");
  std::filesystem::create_directories(dir / "run" / "report");
  std::filesystem::create_symlink(dir / "victim.txt", dir / "run" / "report" / "summary.md");
  std::ostringstream log;
  write_run_report(dir / "run", {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  EXPECT_EQ(read_text(dir / "victim.txt"), "keep me");
  EXPECT_FALSE(std::filesystem::is_symlink(dir / "run" / "report" / "summary.md"));
  EXPECT_TRUE(contains(read_text(dir / "run" / "report" / "summary.md"), "2x1_softmax") ||
              contains(read_text(dir / "run" / "report" / "summary.md"), "1x1_softmax"));
  // A link in place of the report folder itself is refused, not written through.
  std::filesystem::remove_all(dir / "run" / "report");
  std::filesystem::create_directories(dir / "elsewhere");
  std::filesystem::create_directory_symlink(dir / "elsewhere", dir / "run" / "report");
  try {
    write_run_report(dir / "run", {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
    ADD_FAILURE() << "wrote through a linked report folder";
  } catch (const ReportError& e) {
    EXPECT_TRUE(contains(e.what(), "report is a symbolic link")) << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir / "elsewhere"));
}

// The sweep's title heads the report as it is, with no "Sweep " in front (a sweep.yaml without
// `name:` used to give "Sweep sweep"); a sweep.json without a title falls back to its name.
TEST(Report, SweepReportIsTitledBySweepJsonTitleElseName) {
  const auto dir = fresh_test_dir();
  write_fake_sweep(dir, "sweep", {{"sm0", spec("softmax", 1, 1, 0)}});
  std::ostringstream log;
  const ReportOptions options{.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log};
  write_sweep_report(dir, options);
  std::string md = read_text(dir / "report" / "summary.md");
  EXPECT_EQ(md.rfind("# sweep\n", 0), 0u) << md;
  EXPECT_FALSE(contains(md, "Sweep sweep")) << md;

  nlohmann::json j = nlohmann::json::parse(read_text(dir / "sweep.json"));
  j["title"] = "normalizers 1x1";
  write_text(dir / "sweep.json", j.dump());
  write_sweep_report(dir, options);
  md = read_text(dir / "report" / "summary.md");
  EXPECT_EQ(md.rfind("# normalizers 1x1\n", 0), 0u) << md;
  EXPECT_TRUE(contains(read_text(dir / "report" / "index.html"), "<title>normalizers 1x1</title>"));

  j["title"] = 3;
  write_text(dir / "sweep.json", j.dump());
  try {
    write_sweep_report(dir, options);
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_TRUE(contains(e.what(), "sweep.json: title: expected a string")) << e.what();
  }
}

TEST(Report, MistypedSweepJsonFieldIsNamed) {
  const auto dir = fresh_test_dir();
  write_text(dir / "sweep.json", R"({"name": "s", "runs": [{"id": 7, "variant": "v", "seed": 0, "dir": "runs/a"}]})");
  try {
    write_sweep_report(dir);
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_TRUE(contains(e.what(), "sweep.json: runs[0].id: expected a string, got number 7")) << e.what();
  }
}


TEST(Report, MapWhoseHeaderClaimsHugeShapeIsSkippedNotAllocated) {
  const auto dir = fresh_test_dir();
  write_fake_run(dir / "run", spec("softmax", 1, 1, 0));
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }";
  dict.append(118 - dict.size(), ' ');
  dict += '\n';  // 10 + 118 = 128 bytes of header
  const std::string header = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(dict.size()) + '\0' + dict;
  write_text(dir / "run" / "attention" / "layer0_head0_mean.npy", header + std::string(64, '\0'));
  std::ostringstream log;
  write_run_report(dir / "run", {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  EXPECT_TRUE(contains(log.str(), "skipped")) << log.str();
  EXPECT_TRUE(contains(log.str(), "the shape needs more than the 16 float32 values the file holds")) << log.str();
}

// A 4x4 sweep used to put its 32 panels (2 variants x 16 heads) into one 8-wide figure, squeezed to
// page width. Now: one figure per layer, a variant's 4 heads in a row, each panel 300 x 280 px.
TEST(Report, MultiLayerMapsAreOneFigurePerLayerWithLegiblePanels) {
  const auto dir = fresh_test_dir();
  write_fake_sweep(dir, "paper", {{"sm0", spec("softmax", 4, 4, 0)}, {"re0", spec("relu", 4, 4, 0)}});
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const auto figs = dir / "report" / "figures";
  EXPECT_FALSE(std::filesystem::exists(figs / "attention_4x4_T16_mean.gp"));
  for (int l = 0; l < 4; ++l) {
    const std::string name = "attention_4x4_T16_L" + std::to_string(l) + "_mean";
    ASSERT_TRUE(std::filesystem::exists(figs / (name + ".gp"))) << name;
    const std::string gp = read_text(figs / (name + ".gp"));
    EXPECT_TRUE(contains(gp, "set multiplot layout 2,4")) << gp;
    EXPECT_TRUE(contains(gp, "size 1200,600 ")) << "4 columns x 300 px, 2 rows x 280 px + the title: " << gp;
    const std::string layer = "L" + std::to_string(l);
    for (int h = 0; h < 4; ++h) {
      const std::string head = layer + "H" + std::to_string(h);
      // softmax rows sum to 1: the paper's [0, 1]; relu rows do not: [0, largest value of the panel].
      EXPECT_TRUE(contains(gp, "set cbrange [0:1]\n  set title \"4x4_softmax " + head + "\"")) << head << "\n" << gp;
      EXPECT_TRUE(contains(gp, "set cbrange [0:0.125]\n  set title \"4x4_relu " + head + " [0, 0.125]\""))
          << head << "\n"
          << gp;
    }
    EXPECT_TRUE(contains(gp, "(seed 0)")) << gp;
  }
  const std::string md = read_text(dir / "report" / "summary.md");
  EXPECT_TRUE(
      contains(md,
               "Colour scale [0, 1] on panels whose rows sum to 1; per panel, [0, largest value of the panel] (the "
               "bracket in its title), on the others, whose rows do not."))
      << md;
}

// Std maps where the evaluation inputs do move the attention: drawn, one per layer, each panel on its own scale.
TEST(Report, StdMapsThatVaryAreDrawnOnTheirOwnScale) {
  const auto dir = fresh_test_dir();
  FakeRunSpec s = spec("softmax", 2, 2, 0);
  s.jitter = 0.5f;
  write_fake_sweep(dir, "paper", {{"sm0", s}});
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const auto figs = dir / "report" / "figures";
  for (const char* name : {"attention_2x2_T16_L0_std", "attention_2x2_T16_L1_std"}) {
    ASSERT_TRUE(std::filesystem::exists(figs / (std::string(name) + ".gp"))) << name;
    const std::string gp = read_text(figs / (std::string(name) + ".gp"));
    EXPECT_FALSE(contains(gp, "[0:1]")) << gp;
    EXPECT_TRUE(contains(gp, "set multiplot layout 1,2")) << gp;
  }
  const std::string md = read_text(dir / "report" / "summary.md");
  EXPECT_TRUE(contains(md, "Colour scale per panel, [0, largest std of the panel] (the bracket in its title).")) << md;
  EXPECT_FALSE(contains(md, "Std maps not drawn")) << md;
}

// --seed N: whose maps and BOS curve are drawn; by default each variant's lowest seed (here listed last).
TEST(Report, SeedChoosesWhoseMapsAreDrawn) {
  const auto dir = fresh_test_dir();
  write_fake_sweep(dir, "paper", {{"sm2", spec("softmax", 2, 2, 2)}, {"sm1", spec("softmax", 2, 2, 1)},
                                  {"re2", spec("relu", 2, 2, 2)}, {"re1", spec("relu", 2, 2, 1)}});
  const auto figs = dir / "report" / "figures";
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  EXPECT_TRUE(contains(read_text(figs / "attention_2x2_T16_L0_mean.gp"), "layer 0 (seed 1)\""));
  EXPECT_TRUE(contains(read_text(figs / "bos_vs_step_2x2_relu.gp"), "seed 1"));
  EXPECT_TRUE(contains(read_text(dir / "report" / "summary.md"),
                       "Mean attention over the evaluation inputs, layer 0, seed 1 "));
  const std::string seed1_data = read_text(figs / "attention_2x2_T16_L0_mean.dat");

  ReportOptions options{.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log};
  options.seed = 2;
  write_sweep_report(dir, options);
  EXPECT_TRUE(contains(read_text(figs / "attention_2x2_T16_L1_mean.gp"), "layer 1 (seed 2)\""));
  EXPECT_TRUE(contains(read_text(figs / "bos_vs_step_2x2_softmax.gp"), "seed 2"));
  EXPECT_NE(read_text(figs / "attention_2x2_T16_L0_mean.dat"), seed1_data) << "the maps of seed 2, not of seed 1";

  options.seed = 7;
  try {
    write_sweep_report(dir, options);
    ADD_FAILURE() << "a seed no run has was accepted";
  } catch (const ReportError& e) {
    EXPECT_TRUE(contains(e.what(), "--seed 7: no run in ")) << e.what();
    EXPECT_TRUE(contains(e.what(), "(seeds there: 2, 1)")) << e.what();
  }
  options.seed = 1;  // a run folder: the seed must be its own
  EXPECT_THROW(write_run_report(dir / "runs" / "re2", options), ReportError);
  options.seed = 2;
  EXPECT_NO_THROW(write_run_report(dir / "runs" / "re2", options));
}

// Every figure a report writes names what its x and y axes show (an axis whose tics are named, like the
// variants of the BOS dots, is labelled by its tics).
TEST(Report, EveryFigureScriptLabelsBothAxes) {
  const auto dir = fresh_test_dir();
  write_fake_sweep(dir / "sweep", "paper", {{"sm0", spec("softmax", 1, 1, 0)}, {"re0", spec("relu", 1, 1, 0)},
                                            {"sm4", spec("softmax", 2, 2, 0)}, {"re4", spec("relu", 2, 2, 0)}});
  FakeRunSpec varied = spec("softmax", 1, 1, 0);
  varied.jitter = 0.5f;
  write_fake_run(dir / "one", varied);
  write_fake_run(dir / "grid", spec("relu", 2, 2, 0));
  std::ostringstream log;
  write_sweep_report(dir / "sweep", {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  write_run_report(dir / "one", {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  write_run_report(dir / "grid", {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  int scripts = 0;
  for (const auto& report : {dir / "sweep" / "report", dir / "one" / "report", dir / "grid" / "report"})
    for (const auto& f : std::filesystem::directory_iterator(report / "figures")) {
      if (f.path().extension() != ".gp") continue;
      ++scripts;
      const std::string gp = read_text(f.path());
      EXPECT_TRUE(contains(gp, "set xlabel \"")) << f.path();
      EXPECT_TRUE(contains(gp, "set ylabel \"")) << f.path();
    }
  EXPECT_GE(scripts, 12);
}

// The report of one run of a task kind, as files: summary.md, index.html, summary.csv and the gnuplot
// scripts of the loss and BOS figures.
struct TaskReport {
  std::string md, html, csv, loss_gp, bos_gp;
};

TaskReport task_report(const std::filesystem::path& dir, sinklab::testing::FakeTask task) {
  FakeRunSpec s = spec("softmax", 1, 2, 0);
  s.task = task;
  write_fake_run(dir / "run", s);
  std::ostringstream log;
  write_run_report(dir / "run", {.output_dir = dir / "out", .gnuplot = "gnuplot", .render = false, .log = &log});
  const auto out = dir / "out";
  return {read_text(out / "summary.md"), read_text(out / "index.html"), read_text(out / "summary.csv"),
          read_text(out / "figures" / "loss_vs_step.gp"), read_text(out / "figures" / "bos_vs_step.gp")};
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Only numbers the task defines: never "nan" in a table, never an empty mean's dash for a whole column.
void expect_only_defined_numbers(const TaskReport& r) {
  for (const std::string* text : {&r.md, &r.html, &r.csv}) EXPECT_FALSE(contains(lower(*text), "nan")) << *text;
  EXPECT_FALSE(contains(r.md, "| - |")) << r.md;
}

TEST(Report, ALanguageModelRunShowsCrossEntropyAccuracyAndAllRows) {
  const TaskReport r = task_report(fresh_test_dir(), sinklab::testing::FakeTask::text_lm);
  expect_only_defined_numbers(r);
  for (const std::string* text : {&r.md, &r.html, &r.loss_gp, &r.bos_gp})
    EXPECT_FALSE(contains(lower(*text), "trigger")) << *text;
  for (const char* column :
       {"| eval loss (nats) |", "| eval loss (bits) |", "| accuracy |", "L0H1 BOS@all rows", "BOS@all rows"})
    EXPECT_TRUE(contains(r.md, column)) << column << "\n" << r.md;
  EXPECT_TRUE(contains(r.md, "| 1.2500 (n=1) | 1.8034 (n=1) | 0.6250 (n=1) |")) << r.md;  // 1.25 nats = 1.8034 bits
  for (const char* hole :
       {"eval_mse", "reached stop", "active loss", "no-op loss", "BOS@no-op", "BOS@non", "evaluation trigger"})
    EXPECT_FALSE(contains(r.md, hole)) << hole << "\n" << r.md;
  EXPECT_TRUE(contains(r.csv, ",eval_loss,eval_accuracy,")) << r.csv;
  EXPECT_FALSE(contains(r.csv, "eval_mse")) << r.csv;
  EXPECT_TRUE(contains(r.loss_gp, "set ylabel \"cross-entropy (nats)\"")) << r.loss_gp;
  EXPECT_TRUE(contains(r.loss_gp, "set y2label \"cross-entropy (bits)\"")) << r.loss_gp;
  EXPECT_FALSE(contains(r.loss_gp, "MSE")) << r.loss_gp;
  EXPECT_TRUE(contains(r.bos_gp, "set ylabel \"BOS mass on all rows\"")) << r.bos_gp;
}

TEST(Report, ACopyRunShowsItsActiveRowsAndNamesItsNoOpRows) {
  const TaskReport r = task_report(fresh_test_dir(), sinklab::testing::FakeTask::copy);
  expect_only_defined_numbers(r);
  for (const std::string* text : {&r.md, &r.html, &r.loss_gp, &r.bos_gp})
    EXPECT_FALSE(contains(lower(*text), "trigger")) << *text;
  for (const char* column : {"| eval loss (nats) |", "| accuracy |", "| active loss (nats) | active accuracy |",
                             "L0H1 BOS@no-op", "BOS@no-op: mean attention on the sink keys"})
    EXPECT_TRUE(contains(r.md, column)) << column << "\n" << r.md;
  // copy scores no no-op row: no column for a loss it cannot have; no all-row columns beside the no-op ones
  for (const char* hole : {"no-op loss", "no-op accuracy", "eval_mse", "BOS@all rows"})
    EXPECT_FALSE(contains(r.md, hole)) << hole << "\n" << r.md;
  EXPECT_TRUE(contains(r.loss_gp, "set ylabel \"cross-entropy (nats)\"")) << r.loss_gp;
  EXPECT_TRUE(contains(r.bos_gp, "set ylabel \"BOS mass on no-op rows\"")) << r.bos_gp;
}

TEST(Report, ATriggerRunKeepsItsMseAndTriggerWording) {
  const TaskReport r = task_report(fresh_test_dir(), sinklab::testing::FakeTask::trigger);
  expect_only_defined_numbers(r);
  for (const char* column : {"| reached stop |", "| eval_mse |", "L0H1 BOS@non-trigger", "evaluation trigger j = 8"})
    EXPECT_TRUE(contains(r.md, column)) << column << "\n" << r.md;
  for (const char* hole : {"eval loss", "accuracy", "BOS@all rows"})
    EXPECT_FALSE(contains(r.md, hole)) << hole << "\n" << r.md;
  EXPECT_TRUE(contains(r.loss_gp, "set ylabel \"MSE\"")) << r.loss_gp;
  EXPECT_FALSE(contains(r.loss_gp, "cross-entropy")) << r.loss_gp;
  EXPECT_TRUE(contains(r.bos_gp, "set ylabel \"BOS mass on non-trigger rows\"")) << r.bos_gp;
}

TEST(Report, ASweepMixingTasksShowsTheUnionOfTheirColumnsWithEmptyCells) {
  const auto dir = fresh_test_dir();
  FakeRunSpec lm = spec("softmax", 1, 1, 0);
  lm.name = "lm";
  lm.task = sinklab::testing::FakeTask::text_lm;
  write_fake_sweep(dir, "mixed", {{"tr0", spec("softmax", 1, 1, 0)}, {"lm0", lm}});
  std::ostringstream log;
  write_sweep_report(dir, {.output_dir = {}, .gnuplot = "gnuplot", .render = false, .log = &log});
  const auto out = dir / "report";
  const std::string md = read_text(out / "summary.md"), html = read_text(out / "index.html"),
                    csv = read_text(out / "summary.csv");
  for (const std::string* text : {&md, &html, &csv}) EXPECT_FALSE(contains(lower(*text), "nan")) << *text;
  for (const char* column : {"| eval_mse |", "| eval loss (nats) |", "L0H0 BOS@non-trigger", "L0H0 BOS@all rows"})
    EXPECT_TRUE(contains(md, column)) << column << "\n" << md;
  // the trigger variant has no loss in nats, the language model no MSE: empty cells
  EXPECT_TRUE(contains(md, "| 1x1_softmax | 1/1 | 300 (n=1) | 2.00e-07 (n=1) |  |  |  |")) << md;
  EXPECT_TRUE(contains(md, "| lm | 0/1 | 300 (n=1) |  | 1.2500 (n=1) |")) << md;
  EXPECT_TRUE(contains(read_text(out / "figures" / "loss_vs_step_mse.gp"), "set ylabel \"MSE\""));
  EXPECT_TRUE(
      contains(read_text(out / "figures" / "loss_vs_step_cross_entropy.gp"), "set ylabel \"cross-entropy (nats)\""));
  const std::string text = variant_table_text(dir);
  EXPECT_TRUE(contains(text, "eval_mse") && contains(text, "eval loss (nats)")) << text;
  EXPECT_FALSE(contains(lower(text), "nan")) << text;
}

}  // namespace
}  // namespace sinklab
