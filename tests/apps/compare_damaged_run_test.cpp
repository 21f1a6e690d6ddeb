// A finished run of a sweep whose summary.json was damaged afterwards (emptied, a string where a number
// belongs, a heads count that does not match, or the folder of another seed copied over it) must not be
// skipped by the next `compare` while its report lists the run as failed: the damaged files are moved to
// quarantine/, the run is trained again to the same bytes as a solo `sinklab train`, and compare exits
// with its own status for "files were moved aside" (4, docs/compare.md). Runs the real binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_process.h"
#include "tests/support/run_files_without_timing.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// summary.json without its two wall-clock numbers, which no two runs share (docs/reliability.md).
nlohmann::json summary_without_clock(const fs::path& run) {
  nlohmann::json j = nlohmann::json::parse(read_text(run / "summary.json"));
  sinklab::testing::erase_clock_fields(j);
  j.erase("steps_per_second");
  return j;
}

class CompareDamagedRun : public ::testing::Test {
 protected:
  // Two seeds of a 30-step 1x1 run, and one solo training of seed 1 with the same overrides.
  void SetUp() override {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string sets = "train.max_steps: 30, task.eval_samples: 64, analysis.eval_attention_samples: 64";
    std::ofstream(dir_ / "sweep.yaml") << "name: damaged\nbase: " << SINKLAB_SOURCE_DIR
                                       << "/configs/paper/1x1_softmax.yaml\nvariants:\n  - name: softmax\n"
                                       << "    set: {" << sets << "}\ngrid:\n  seed: [0, 1]\n";
    const testing::CliResult first = compare();
    ASSERT_EQ(first.exit_code, 0) << first.output;
    const testing::CliResult solo = testing::run_sinklab(
        "train " + std::string(SINKLAB_SOURCE_DIR) + "/configs/paper/1x1_softmax.yaml --set train.max_steps=30 " +
        "--set task.eval_samples=64 --set analysis.eval_attention_samples=64 --set seed=1 --out " +
        (dir_ / "solo").string());
    ASSERT_EQ(solo.exit_code, 0) << solo.output;
  }
  void TearDown() override { fs::remove_all(dir_); }

  testing::CliResult compare() {
    return testing::run_sinklab("compare " + (dir_ / "sweep.yaml").string() + " --out " + (dir_ / "out").string() +
                                " --jobs 1");
  }
  fs::path run() const { return dir_ / "out/runs/softmax_seed=1"; }

  // Damages seed 1's summary.json with `damage`, then checks the next compare: exit 4, the note naming
  // `what`, no FAILED line in its report, the run retrained like the solo run; and the one after: exit 0.
  void expect_moved_aside_and_retrained(const std::function<void()>& damage, const std::string& what) {
    damage();
    const testing::CliResult again = compare();
    EXPECT_EQ(again.exit_code, 4) << again.output;
    EXPECT_NE(again.output.find("note: softmax_seed=1 (softmax, seed=1): damaged run file (" + what),
              std::string::npos)
        << again.output;
    EXPECT_NE(again.output.find(") moved to " + (dir_ / "out/quarantine/softmax_seed=1.summary.json").string()),
              std::string::npos)
        << again.output;
    EXPECT_NE(again.output.find("finished 2 of 2 runs (0 diverged), 0 failed, "), std::string::npos)
        << again.output;
    EXPECT_EQ(again.output.find("FAILED"), std::string::npos) << again.output;
    ASSERT_TRUE(fs::exists(run() / "summary.json")) << again.output;
    EXPECT_EQ(summary_without_clock(run()), summary_without_clock(dir_ / "solo"));
    EXPECT_EQ(read_text(run() / "checkpoint.bin"), read_text(dir_ / "solo/checkpoint.bin"));

    const testing::CliResult third = compare();
    EXPECT_EQ(third.exit_code, 0) << third.output;
    EXPECT_NE(third.output.find("resume: 2 of 2 runs already finished"), std::string::npos) << third.output;
  }
  // Seed 1's summary.json as JSON, edited by `edit` and written back.
  void edit_summary(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(read_text(run() / "summary.json"));
    edit(j);
    write_text(run() / "summary.json", j.dump(2));
  }

  fs::path dir_ = fs::temp_directory_path() / ("sinklab_compare_damaged_" + std::to_string(::getpid()));
};

TEST_F(CompareDamagedRun, AnEmptySummaryIsMovedAsideAndTheRunRetrained) {
  expect_moved_aside_and_retrained([&] { write_text(run() / "summary.json", ""); },
                                   "summary.json does not read: " + (run() / "summary.json").string() +
                                       ": invalid JSON");
}

TEST_F(CompareDamagedRun, AStringWhereANumberBelongsIsMovedAsideAndTheRunRetrained) {
  expect_moved_aside_and_retrained([&] { edit_summary([](nlohmann::json& j) { j["steps"] = "30"; }); },
                                   "summary.json does not read: " + (run() / "summary.json").string() + ": steps");
}

TEST_F(CompareDamagedRun, AHeadsCountThatDoesNotMatchIsMovedAsideAndTheRunRetrained) {
  expect_moved_aside_and_retrained([&] { edit_summary([](nlohmann::json& j) { j["heads_per_layer"] = 2; }); },
                                   "summary.json does not read: " + (run() / "summary.json").string() + ": heads");
}

// A copy of another seed's folder reads as a finished run: compare skipped it on every invocation while
// the report listed it as FAILED (another seed than planned) and compare exited 0.
TEST_F(CompareDamagedRun, AnotherSeedsFolderIsMovedAsideAndTheRunRetrained) {
  expect_moved_aside_and_retrained(
      [&] {
        fs::remove_all(run());
        fs::copy(dir_ / "out/runs/softmax_seed=0", run(), fs::copy_options::recursive);
      },
      "summary.json names seed 0, but the sweep planned seed 1 for softmax_seed=1");
  EXPECT_TRUE(fs::exists(dir_ / "out/quarantine/softmax_seed=1.checkpoint.bin"));  // seed 0's: not resumed from
}

}  // namespace
}  // namespace sinklab
