#include "sweep/compare_sweep.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text/shell_quote.h"
#include "run_files/run_summary.h"
#include "sweep/sweep_error.h"
#include "sweep/sweep_runner.h"
#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::FakeTrainOptions;
using testing::read_file;
using testing::ScratchDir;
using testing::write_fake_train;
using testing::write_file;
using testing::write_intact_checkpoint;

class CompareSweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(dir / "a.yaml", "seed: 0\n");
    write_sweep("1e-3");
  }
  void write_sweep(const std::string& relu_lr) {
    write_file(dir / "s.yaml",
               "name: demo\nbase: a.yaml\n"
               "variants:\n"
               "  - name: soft\n"
               "  - name: relu\n"
               "    set:\n"
               "      model.attention.normalizer: relu\n"
               "      optimizer.lr: " + relu_lr + "\n"
               "grid:\n  seed: [0, 1]\n");
  }
  int compare(const FakeTrainOptions& fake, bool dry_run = false, bool report = false,
              const std::vector<std::string>& sets = {}) {
    CompareOptions options;
    options.sweep_file = dir / sweep_file_name;
    options.out_dir = dir / "out";
    options.sets = sets;
    options.status_interval = status_interval;
    options.jobs = 2;
    options.dry_run = dry_run;
    options.executable = write_fake_train(dir / "fake_train.sh", fake);
    options.report = report;
    options.render_plots = false;  // the report's data and scripts, without waiting for gnuplot
    out.str("");
    err.str("");
    return compare_sweep(options, out, err);
  }
  // A summary.json the report can read, written by every fake run.
  FakeTrainOptions readable_summaries() {
    RunSummary summary;
    summary.name = "fake";
    summary.steps = 42;
    summary.stop_reason = "max_abs_error";
    summary.reached_stop_rule = true;
    summary.normalizer = "softmax";
    summary.layers = 1;
    summary.heads_per_layer = 1;
    summary.seq_len = 16;
    summary.heads.resize(1);
    summary.heads[0].bos_mass_nontrigger_mean = 0.99;
    write_file(dir / "summary.json", nlohmann::json(summary).dump());
    FakeTrainOptions fake;
    fake.summary_file = dir / "summary.json";
    return fake;
  }
  ScratchDir dir;
  std::string sweep_file_name = "s.yaml";
  std::chrono::milliseconds status_interval{10000};
  std::ostringstream out, err;
};

TEST_F(CompareSweepTest, DryRunListsRunsAndStartsNothing) {
  EXPECT_EQ(compare({}, /*dry_run=*/true), 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  const std::string text = out.str();
  EXPECT_NE(text.find("sweep demo: 4 runs (2 variants x 2 grid points)"), std::string::npos) << text;
  EXPECT_NE(text.find("[4/4] relu_seed=1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("--set model.attention.normalizer=relu --set optimizer.lr=1e-3 --set seed=1"),
            std::string::npos)
      << text;
  // Each command is complete: the binary, its folder and the thread count the runner would give it.
  const std::string fake_train = (dir / "fake_train.sh").string();
  EXPECT_NE(text.find("    " + fake_train + " train " + (dir / "a.yaml").string() +
                      " --set model.attention.normalizer=relu --set optimizer.lr=1e-3 --set seed=1 --out " +
                      (dir / "out/runs/relu_seed=1").string() + " --threads 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("4 of 4 runs to do"), std::string::npos) << text;

  ASSERT_EQ(compare({}), 0);
  EXPECT_EQ(compare({}, /*dry_run=*/true), 0);
  EXPECT_NE(out.str().find("[1/4] soft_seed=0  (finished)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("0 of 4 runs to do"), std::string::npos) << out.str();
}

TEST_F(CompareSweepTest, FailedRunsGiveExitOneAndAReportOnStderr) {
  FakeTrainOptions fake;
  fake.fail_when_out_contains = "relu_seed=0";
  EXPECT_EQ(compare(fake), 1);
  EXPECT_TRUE(std::filesystem::exists(dir / "out/sweep.json"));
  EXPECT_NE(err.str().find("1 run failed"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("- relu_seed=0 (relu, seed=0): exit 3"), std::string::npos) << err.str();
  EXPECT_EQ(compare({}), 0);  // the retry runs only the failed one
  EXPECT_NE(out.str().find("resume: 3 of 4 runs already finished"), std::string::npos) << out.str();
  EXPECT_EQ(err.str(), "");
}

TEST_F(CompareSweepTest, InvalidSweepThrowsBeforeAnythingIsWritten) {
  write_file(dir / "s.yaml", "base: a.yaml\ngrid:\n  optimizer.lrr: [1e-3]\n");
  EXPECT_THROW(compare({}), SweepError);
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_F(CompareSweepTest, RunsWhoseOverridesChangedAreRedone) {
  ASSERT_EQ(compare({}), 0);
  write_file(dir / "out/runs/soft_seed=0/marker", "kept");
  write_file(dir / "out/runs/relu_seed=0/marker", "stale");
  write_sweep("3e-4");  // relu's lr changes, soft stays
  ASSERT_EQ(compare({}), 0);
  EXPECT_NE(out.str().find("note: relu_seed=0 changed since the last invocation"), std::string::npos) << out.str();
  EXPECT_TRUE(std::filesystem::exists(dir / "out/runs/soft_seed=0/marker"));
  EXPECT_FALSE(std::filesystem::exists(dir / "out/runs/relu_seed=0/marker"));
  EXPECT_NE(read_file(dir / "out/runs/relu_seed=0/args.txt").find("optimizer.lr=3e-4"), std::string::npos);
}

TEST_F(CompareSweepTest, WritesTheAnalysisReportAndPrintsTheVariantTable) {
  FakeTrainOptions fake = readable_summaries();
  fake.fail_when_out_contains = "relu_seed=1";

  EXPECT_EQ(compare(fake, false, /*report=*/true), 1);  // one run failed, the report still comes
  const std::filesystem::path index = dir / "out/report/index.html";
  EXPECT_TRUE(std::filesystem::exists(index));
  const std::string text = out.str();
  EXPECT_NE(text.find("report: " + index.string()), std::string::npos) << text;
  const std::filesystem::path explorer = dir / "out/report/explorer.html";
  EXPECT_TRUE(std::filesystem::exists(explorer));
  EXPECT_NE(text.find("explorer: " + explorer.string() + "\n"), std::string::npos) << text;
  EXPECT_TRUE(std::filesystem::exists(dir / "out/report/explorer-runs/relu_seed_1/explorer.html"))
      << "the failed run's page (= is not kept in a folder name)";
  EXPECT_NE(text.find("soft"), text.rfind("relu")) << text;
  EXPECT_NE(text.find("FAILED relu_seed=1"), std::string::npos) << text;
}

// A grid over one config in a file without `name:`: the labels are the grid values alone and the
// report is titled by the file (it used to read "Sweep sweep" with labels "a normalizer=relu").
TEST_F(CompareSweepTest, AGridOverOneConfigIsLabelledByItsValuesAndTitledByItsFile) {
  sweep_file_name = "sweep.yaml";
  write_file(dir / sweep_file_name,
             "base: a.yaml\ngrid:\n  model.attention.normalizer: [softmax, relu]\n  seed: [0]\n");
  ASSERT_EQ(compare(readable_summaries(), false, /*report=*/true), 0) << err.str();
  const nlohmann::json manifest = nlohmann::json::parse(read_file(dir / "out/sweep.json"));
  EXPECT_EQ(manifest.at("title"), "sweep");
  EXPECT_EQ(manifest.at("runs").at(1).at("variant"), "normalizer=relu");
  EXPECT_EQ(manifest.at("runs").at(1).at("id"), "a_normalizer=relu_seed=0");  // folder names as before

  const std::string md = read_file(dir / "out/report/summary.md");
  EXPECT_EQ(md.rfind("# sweep\n", 0), 0u) << md;
  EXPECT_NE(md.find("| normalizer=softmax |"), std::string::npos) << md;
  EXPECT_NE(md.find("| normalizer=relu |"), std::string::npos) << md;
  EXPECT_EQ(md.find("a normalizer="), std::string::npos) << md;
  EXPECT_NE(read_file(dir / "out/report/index.html").find("<title>sweep</title>"), std::string::npos);
  EXPECT_NE(out.str().find("normalizer=relu"), std::string::npos) << out.str();  // the terminal table

  EXPECT_EQ(compare(readable_summaries()), 0);
  EXPECT_NE(out.str().find("resume: 2 of 2 runs already finished"), std::string::npos) << out.str();
}

// The zoo comparison end to end: classes and predictions from the sweep file reach sweep.json, the
// report's table groups by them and evaluates each class's gate, the terminal shows the narrow version.
TEST_F(CompareSweepTest, VariantsWithSinkClassesGetTheZooTable) {
  write_file(dir / "s.yaml",
             "name: zoo\nbase: a.yaml\n"
             "variants:\n"
             "  - name: relu\n"
             "    class: Z\n"
             "    predicted: empty rows\n"
             "    set: {model.attention.normalizer: relu, train.max_steps: 200}\n"
             "  - name: softmax\n"
             "    class: S\n"
             "    predicted: \"stops; BOS@nt 0.9998\"\n"
             "    set: {train.max_steps: 200}\n"
             "grid:\n  seed: [0, 1]\n");
  ASSERT_EQ(compare(readable_summaries(), false, /*report=*/true), 0) << err.str();
  const nlohmann::json manifest = nlohmann::json::parse(read_file(dir / "out/sweep.json"));
  EXPECT_EQ(manifest.at("runs").at(0).at("class"), "Z");
  EXPECT_EQ(manifest.at("runs").at(3).at("predicted"), "stops; BOS@nt 0.9998");

  // Every fake run parks 0.99 on BOS: the simplex gate passes, the zero-row gate fails with the number.
  const std::string md = read_file(dir / "out/report/summary.md");
  const auto s = md.find("| **S: simplex rows (BOS sink necessary)** |");
  const auto z = md.find("| **Z: all-zero rows possible (no sink needed)** |");
  ASSERT_NE(s, std::string::npos) << md;
  ASSERT_NE(z, std::string::npos) << md;
  EXPECT_LT(s, z);
  EXPECT_NE(md.find("| stops; BOS@nt 0.9998 | pass 2/2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| empty rows | FAIL 2/2: seed 0 BOS@nt 0.99 > 0.01; seed 1 BOS@nt 0.99 > 0.01 |"),
            std::string::npos)
      << md;
  EXPECT_NE(out.str().find("measured (class gate)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\nS: simplex rows (BOS sink necessary)\nsoftmax "), std::string::npos) << out.str();
}

// Run folders of a sweep started before labels and titles changed are found and kept: only the
// labels in sweep.json change, and the report follows them.
TEST_F(CompareSweepTest, ASweepJsonWithOlderLabelsStillResumes) {
  write_file(dir / "s.yaml", "base: a.yaml\ngrid:\n  model.attention.normalizer: [softmax, relu]\n  seed: [0]\n");
  ASSERT_EQ(compare(readable_summaries()), 0);
  nlohmann::json old = nlohmann::json::parse(read_file(dir / "out/sweep.json"));
  old.erase("title");
  for (auto& run : old.at("runs")) run["variant"] = "a " + run.at("variant").get<std::string>();
  write_file(dir / "out/sweep.json", old.dump());
  ASSERT_EQ(compare(readable_summaries(), false, /*report=*/true), 0) << err.str();
  EXPECT_NE(out.str().find("resume: 2 of 2 runs already finished"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("changed since the last invocation"), std::string::npos) << out.str();
  const nlohmann::json now = nlohmann::json::parse(read_file(dir / "out/sweep.json"));
  EXPECT_EQ(now.at("title"), "s");
  EXPECT_EQ(now.at("runs").at(0).at("variant"), "normalizer=softmax");
  EXPECT_EQ(read_file(dir / "out/report/summary.md").rfind("# s\n", 0), 0u);
}

TEST_F(CompareSweepTest, AReportProblemIsReportedWithoutLosingTheRuns) {
  FakeTrainOptions fake;
  ASSERT_EQ(compare(fake), 0);
  CompareOptions options;
  options.sweep_file = dir / "s.yaml";
  options.out_dir = dir / "out";
  options.executable = write_fake_train(dir / "fake_train.sh", fake);
  options.render_plots = false;
  // A file where the report folder goes: the report cannot be written, the finished runs stay.
  write_file(dir / "out/report", "a file where the report folder should be");
  std::ostringstream o, e;
  EXPECT_EQ(compare_sweep(options, o, e), 1);
  EXPECT_NE(e.str().find("the runs are saved but the report failed"), std::string::npos) << e.str();
  // The rerun line names the binary that ran (here the fake) and quotes its arguments: it can be pasted.
  EXPECT_NE(e.str().find("(after fixing it: " +
                         shell_command({options.executable.string(), "report", (dir / "out").string()}) + ")"),
            std::string::npos)
      << e.str();
  EXPECT_NE(o.str().find("resume: 4 of 4 runs already finished"), std::string::npos) << o.str();
}


TEST_F(CompareSweepTest, DivergedRunsFinishTheSweepWithExitZeroAndAreCounted) {
  FakeTrainOptions fake;
  fake.diverge_when_out_contains = "relu_seed=1";
  EXPECT_EQ(compare(fake), 0);
  EXPECT_EQ(err.str(), "");
  EXPECT_NE(out.str().find("relu, seed=1 diverged (loss is nan at step 11)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("finished 4 of 4 runs (1 diverged), 0 failed"), std::string::npos) << out.str();
  EXPECT_EQ(compare({}), 0);  // nothing is rerun
  EXPECT_NE(out.str().find("resume: 4 of 4 runs already finished (1 diverged)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("finished 4 of 4 runs (1 diverged), 0 failed"), std::string::npos) << out.str();
}

TEST_F(CompareSweepTest, TooLongVariantNameIsRefusedBeforeAnyRun) {
  write_file(dir / "s.yaml", "name: demo\nbase: a.yaml\nvariants:\n  - name: ok\n  - name: " + std::string(300, 'v') +
                                 "\ngrid:\n  seed: [0, 1]\n");
  try {
    compare({});
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:5:"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_F(CompareSweepTest, MistypedSweepJsonIsNamedNotARawJsonError) {
  write_file(dir / "out/sweep.json", R"({"name": "demo", "runs": [{"id": 5}]})");
  try {
    compare({});
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "out/sweep.json").string() + ": runs[0].id: expected a string"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out/runs"));  // nothing ran
}

// A run folder whose checkpoint is damaged would fail its --resume on every compare: the file goes to
// the sweep's quarantine/, the run starts over (--force), and the end of the sweep and the report name it.
// A summary.json that is not JSON (compare: unfinished; train --resume: finished) goes the same way.
TEST_F(CompareSweepTest, ADamagedCheckpointIsMovedAsideAndItsRunStartsOverOnce) {
  FakeTrainOptions fake = readable_summaries();
  fake.fail_when_out_contains = "relu_seed=0";
  ASSERT_EQ(compare(fake), 1);
  write_file(dir / "out/runs/relu_seed=0/checkpoint.bin", "SINKCKPT half of a checkpoint");
  const std::filesystem::path moved = dir / "out/quarantine/relu_seed=0.checkpoint.bin";

  fake.fail_when_out_contains.clear();
  ASSERT_EQ(compare(fake, false, /*report=*/true), kCompareExitFilesMovedAside) << err.str();
  EXPECT_NE(out.str().find("note: relu_seed=0 (relu, seed=0): damaged run file (checkpoint " +
                           (dir / "out/runs/relu_seed=0/checkpoint.bin").string() + ": "),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("moved to " + moved.string() + "; the run goes on without it"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("0 failed, 1 damaged run file moved aside"), std::string::npos) << out.str();
  EXPECT_NE(err.str().find("1 damaged run file was moved aside; their runs went on without them:\n- relu_seed=0: "),
            std::string::npos)
      << err.str();
  EXPECT_EQ(read_file(moved), "SINKCKPT half of a checkpoint");
  const std::string args = read_file(dir / "out/runs/relu_seed=0/args.txt");
  EXPECT_NE(args.find("--force"), std::string::npos) << args;
  EXPECT_EQ(args.find("--resume"), std::string::npos) << args;
  EXPECT_NE(read_file(dir / "out/report/index.html").find("quarantine/relu_seed=0.checkpoint.bin"), std::string::npos);

  ASSERT_EQ(compare(fake), 0);  // finished now: nothing is moved again
  EXPECT_EQ(out.str().find("damaged"), std::string::npos) << out.str();

  write_file(dir / "out/runs/soft_seed=1/summary.json", "{\"steps\": 1e999");
  write_file(dir / "out/runs/soft_seed=1/checkpoint.bin", "SINKCKPT");
  ASSERT_EQ(compare(fake), kCompareExitFilesMovedAside) << err.str();
  EXPECT_NE(out.str().find("note: soft_seed=1 (soft, seed=1): damaged run file (summary.json does not read: " +
                           (dir / "out/runs/soft_seed=1/summary.json").string() + ": invalid JSON"),
            std::string::npos)
      << out.str();
  const std::string moved_to = ") moved to " + (dir / "out/quarantine/soft_seed=1.summary.json").string();
  EXPECT_NE(out.str().find(moved_to), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("2 damaged run files moved aside"), std::string::npos) << out.str();
  EXPECT_TRUE(std::filesystem::exists(dir / "out/quarantine/soft_seed=1.checkpoint.bin"));
  EXPECT_NE(read_file(dir / "out/runs/soft_seed=1/args.txt").find("--force"), std::string::npos);

  // A directory where summary.json should be is moved aside too; one where sweep.json should be is named.
  std::filesystem::remove(dir / "out/runs/soft_seed=0/summary.json");
  std::filesystem::create_directory(dir / "out/runs/soft_seed=0/summary.json");
  ASSERT_EQ(compare(fake), kCompareExitFilesMovedAside) << err.str();
  EXPECT_TRUE(std::filesystem::is_directory(dir / "out/quarantine/soft_seed=0.summary.json")) << out.str();
  std::filesystem::remove(dir / "out/sweep.json");
  std::filesystem::create_directory(dir / "out/sweep.json");
  try {
    compare(fake);
    FAIL() << "a directory as sweep.json was accepted";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "out/sweep.json").string() + ": is a directory"), std::string::npos)
        << e.what();
  }
}

// A run folder that holds another seed's run reads as finished: it was skipped by every compare while the
// report listed it as failed, and compare exited 0. Now it is moved aside (a symlinked folder as a whole:
// the run it points to keeps its files), the run trains again, and compare exits 4, then 0.
TEST_F(CompareSweepTest, ARunFolderOfAnotherSeedIsMovedAsideAndTheRunTrainsAgain) {
  const FakeTrainOptions fake = readable_summaries();
  ASSERT_EQ(compare(fake), 0) << err.str();
  const std::filesystem::path linked = dir / "out/runs/relu_seed=1", copied = dir / "out/runs/soft_seed=1";
  std::filesystem::remove_all(linked);
  std::filesystem::create_directory_symlink("relu_seed=0", linked);
  std::filesystem::remove_all(copied);
  std::filesystem::copy(dir / "out/runs/soft_seed=0", copied, std::filesystem::copy_options::recursive);
  write_intact_checkpoint(copied / "checkpoint.bin");
  const std::string seed0_summary = read_file(dir / "out/runs/relu_seed=0/summary.json");

  ASSERT_EQ(compare(fake, /*dry_run=*/true), 0);
  EXPECT_NE(out.str().find("[2/4] soft_seed=1\n"), std::string::npos) << out.str();  // to do, not "(finished)"
  EXPECT_NE(out.str().find("2 of 4 runs to do"), std::string::npos) << out.str();

  EXPECT_EQ(compare(fake, false, /*report=*/true), kCompareExitFilesMovedAside) << err.str();
  EXPECT_NE(out.str().find("note: relu_seed=1 (relu, seed=1): damaged run file (summary.json names seed 0, but "
                           "the sweep planned seed 1 for relu_seed=1 (a run folder copied or linked from another "
                           "run)) moved to " +
                           (dir / "out/quarantine/relu_seed=1.relu_seed=1").string()),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("resume: 2 of 4 runs already finished"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("0 failed, 3 damaged run files moved aside"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("FAILED"), std::string::npos) << out.str();
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "out/quarantine/relu_seed=1.relu_seed=1"));
  EXPECT_EQ(read_file(dir / "out/runs/relu_seed=0/summary.json"), seed0_summary);  // untouched
  EXPECT_FALSE(std::filesystem::is_symlink(linked));
  EXPECT_TRUE(std::filesystem::exists(dir / "out/quarantine/soft_seed=1.checkpoint.bin"));
  for (const auto* id : {"relu_seed=1", "soft_seed=1"}) {
    const std::string args = read_file(dir / "out/runs" / id / "args.txt");
    EXPECT_EQ(args.find("--resume"), std::string::npos) << args;  // never from the other seed's checkpoint
    EXPECT_EQ(nlohmann::json::parse(read_file(dir / "out/runs" / id / "summary.json")).get<RunSummary>().seed, 1u)
        << id;
  }
  EXPECT_EQ(compare(fake, false, /*report=*/true), 0) << err.str();
  EXPECT_NE(out.str().find("resume: 4 of 4 runs already finished"), std::string::npos) << out.str();
}

// A training that ends with a summary of another seed is a failed run, not a finished one the next compare
// would skip and the report list as failed.
TEST_F(CompareSweepTest, ATrainingThatWritesAnotherSeedsSummaryFails) {
  write_file(dir / "other_seed.json", testing::fake_summary_json(42, false));
  FakeTrainOptions fake;
  fake.summary_file = dir / "other_seed.json";
  ASSERT_EQ(compare(fake), 0) << err.str();
  // Every later training writes seed 7: the seed substitution finds no "seed":0 to replace.
  nlohmann::json seven = nlohmann::json::parse(testing::fake_summary_json(42, false));
  seven["seed"] = 7;
  write_file(dir / "other_seed.json", seven.dump());
  std::filesystem::remove_all(dir / "out/runs/relu_seed=1");
  EXPECT_EQ(compare(fake, false, /*report=*/true), 1) << err.str();
  EXPECT_NE(err.str().find("- relu_seed=1 (relu, seed=1): exit 0 but its summary.json names seed 7, but the sweep "
                           "planned seed 1 for relu_seed=1"),
            std::string::npos)
      << err.str();
}

TEST_F(CompareSweepTest, SetAppliesToEveryRunAndIsPartOfTheSweepsIdentity) {
  ASSERT_EQ(compare({}, false, false, {"train.max_steps=7"}), 0) << err.str();
  for (const char* id : {"soft_seed=0", "soft_seed=1", "relu_seed=0", "relu_seed=1"})
    EXPECT_NE(read_file(dir / "out/runs" / id / "args.txt").find("--set train.max_steps=7"), std::string::npos) << id;
  const auto manifest = nlohmann::json::parse(read_file(dir / "out/sweep.json"));
  EXPECT_EQ(manifest["set"], nlohmann::json::array({"train.max_steps=7"}));
  EXPECT_EQ(manifest["runs"][0]["overrides"]["train.max_steps"], 7);
  // The same --set resumes; another, or none, is refused before anything changes, naming both.
  ASSERT_EQ(compare({}, false, false, {"train.max_steps=7"}), 0);
  EXPECT_NE(out.str().find("resume: 4 of 4 runs already finished"), std::string::npos) << out.str();
  for (const std::vector<std::string>& other :
       {std::vector<std::string>{"train.max_steps=9"}, std::vector<std::string>{}}) {
    try {
      compare({}, false, false, other);
      ADD_FAILURE() << "a resume with other --set values must be refused";
    } catch (const SweepError& e) {
      const std::string text = e.what();
      EXPECT_NE(text.find("with --set train.max_steps=7 (its sweep.json)"), std::string::npos) << text;
      EXPECT_NE(text.find(other.empty() ? "this compare has no --set" : "this compare has --set train.max_steps=9"),
                std::string::npos)
          << text;
      EXPECT_NE(text.find("another --out"), std::string::npos) << text;
    }
    EXPECT_THROW(compare({}, /*dry_run=*/true, false, other), SweepError);
  }
  EXPECT_EQ(nlohmann::json::parse(read_file(dir / "out/sweep.json"))["set"],
            nlohmann::json::array({"train.max_steps=7"}));
}

TEST_F(CompareSweepTest, SetIsShownInTheDryRunCommands) {
  ASSERT_EQ(compare({}, /*dry_run=*/true, false, {"train.max_steps=7", "name=my run"}), 0);
  EXPECT_NE(out.str().find("--set seed=1 --set train.max_steps=7 --set 'name=my run' --out "), std::string::npos)
      << out.str();
}

TEST_F(CompareSweepTest, SetOnAKeyTheSweepGivesIsRefusedNamingIt) {
  try {
    compare({}, false, false, {"optimizer.lr=0.5"});
    ADD_FAILURE() << "expected a SweepError";
  } catch (const SweepError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("--set optimizer.lr=0.5: the sweep itself gives optimizer.lr (set by variant 'relu' at "),
              std::string::npos)
        << text;
  }
  try {
    compare({}, false, false, {"seed=4"});
    ADD_FAILURE() << "expected a SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("the sweep itself gives seed (grid key at "), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_F(CompareSweepTest, SetWithAnUnknownKeyOrNoValueIsRefusedBeforeAnythingRuns) {
  try {
    compare({}, false, false, {"train.max_stesp=7"});
    ADD_FAILURE() << "expected a SweepError";
  } catch (const SweepError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("--set train.max_stesp=7 for variant 'soft'"), std::string::npos) << text;
    EXPECT_NE(text.find("max_steps"), std::string::npos) << "the loader's did-you-mean: " << text;
  }
  EXPECT_THROW(compare({}, false, false, {"train.max_steps"}), SweepError);
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_F(CompareSweepTest, StatusLinesOnErrSayWhichRunsGoWithTheirStepAndTheFinishedCount) {
  FakeTrainOptions fake;
  fake.logged_step = 7;
  fake.sleep_seconds = 0.6;
  status_interval = std::chrono::milliseconds(50);
  ASSERT_EQ(compare(fake, false, false, {"train.max_steps=20"}), 0) << err.str();
  const std::string text = err.str();
  EXPECT_NE(text.find("0/4 finished; running: soft_seed=0 step 7/20, soft_seed=1 step 7/20\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("2/4 finished; running: relu_seed=0 step 7/20, relu_seed=1 step 7/20\n"), std::string::npos)
      << text;
  EXPECT_EQ(out.str().find("running:"), std::string::npos) << "status lines go to stderr, results to stdout";
}

}  // namespace
}  // namespace sinklab::sweep
