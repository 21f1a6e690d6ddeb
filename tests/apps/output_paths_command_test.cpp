// One rule for every output path (run_files/output_path.h), through the commands: `eval --stream`,
// `eval --ablate`, `export`, `probe`, `report`, `error-vs-sink` and `train` refuse, with exit status 2
// and one message naming the path, an output that is a run's own file (of any run), a device, a FIFO or
// a path through a symlinked folder inside a run; the refused file or node is left as it was. And
// `train --force` leaves no file of the earlier run behind.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/apps/ci_tiny_run.h"
#include "tests/apps/cli_process.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

using OutputPathsCommand = testing::CiTinyRun;

// `sinklab ARGS` must exit 2 naming `named`, and leave `kept` byte for byte as it was.
void expect_refused(const std::string& args, const fs::path& kept, const std::string& named) {
  const std::string before = bytes_of(kept);
  const testing::CliResult r = testing::run_sinklab(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  EXPECT_TRUE(contains(r.output, named)) << args << "\n" << r.output;
  EXPECT_EQ(bytes_of(kept), before) << args << " changed " << kept;
}

TEST_F(OutputPathsCommand, EvalNeverWritesOverTheRunsOwnFiles) {
  const fs::path run = *run_;
  std::ofstream(run / "train.log") << "compare's log of this run\n";  // as compare writes it
  ASSERT_TRUE(fs::exists(run / "attention_snapshots.npz"));
  for (const char* name : {"checkpoint.bin", "summary.json", "config.yaml", "metrics.jsonl", "run.json",
                           "attention_snapshots.npz", "train.log"}) {
    SCOPED_TRACE(name);
    expect_refused("eval " + run.string() + " --stream --window 16 --keep-first 1 --out " + (run / name).string(),
                   run / name, (run / name).string());
    expect_refused("eval " + run.string() + " --ablate mask_bos_key --out " + (run / name).string(), run / name,
                   (run / name).string());
  }
  // --out's figure files beside it: RUN/train.json would truncate RUN/train.log through gnuplot's log.
  expect_refused("eval " + run.string() + " --stream --window 16 --keep-first 1 --out " + (run / "train.json").string(),
                 run / "train.log", (run / "train.log").string());
  EXPECT_FALSE(fs::exists(run / "train.json"));
}

TEST_F(OutputPathsCommand, ARunsFilesAreProtectedFromEveryOtherRunsCommandsToo) {
  const fs::path other = testing::fresh_test_dir() / "other_run";
  fs::create_directories(other / "attention");
  std::ofstream(other / "summary.json") << "{}\n";
  std::ofstream(other / "checkpoint.bin") << "another run's weights";
  expect_refused("eval " + run_->string() + " --ablate mask_bos_key --out " + (other / "checkpoint.bin").string(),
                 other / "checkpoint.bin", (other / "checkpoint.bin").string());
  expect_refused("export " + run_->string() + " --format npz --out " + (other / "attention" / "model.npz").string(),
                 other / "checkpoint.bin", (other / "attention" / "model.npz").string());
  EXPECT_TRUE(fs::is_empty(other / "attention"));
  expect_refused("probe " + run_->string() + " --out " + (other / "attention").string(), other / "checkpoint.bin",
                 (other / "attention").string());
  EXPECT_TRUE(fs::is_empty(other / "attention"));
}

TEST_F(OutputPathsCommand, DevicesAndFifosAreRefusedAndLeftAsTheyWere) {
  const fs::path dir = testing::fresh_test_dir();
  ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0644), 0);
  for (const std::string mode : {"--stream --window 16 --keep-first 1", "--ablate mask_bos_key"}) {
    SCOPED_TRACE(mode);
    for (const fs::path& out : {fs::path("/dev/null"), dir / "fifo.json"}) {
      const testing::CliResult r =
          testing::run_sinklab("eval " + run_->string() + " " + mode + " --out " + out.string());
      EXPECT_EQ(r.exit_code, 2) << r.output;
      EXPECT_TRUE(contains(r.output, "--out: " + out.string() + " is a ")) << r.output;
    }
  }
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_TRUE(fs::is_fifo(dir / "fifo.json"));
  const testing::CliResult train = testing::run_sinklab_in(
      SINKLAB_SOURCE_DIR, "train configs/normlimits/ci_tiny.yaml --out " + (dir / "fifo.json").string());
  EXPECT_EQ(train.exit_code, 2) << train.output;
  EXPECT_TRUE(contains(train.output, (dir / "fifo.json").string() + " is a FIFO, not a folder")) << train.output;
  EXPECT_TRUE(fs::is_fifo(dir / "fifo.json"));
}

TEST_F(OutputPathsCommand, ReportRefusesASymlinkedFiguresFolder) {
  const fs::path dir = testing::fresh_test_dir();
  fs::create_directories(dir / "elsewhere");
  fs::remove_all(*run_ / "report");
  fs::create_directories(*run_ / "report");
  fs::create_directory_symlink(dir / "elsewhere", *run_ / "report" / "figures");
  const testing::CliResult r = testing::run_sinklab("report " + run_->string() + " --no-render");
  fs::remove_all(*run_ / "report");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, (*run_ / "report" / "figures").string() + " is a symbolic link inside the run folder"))
      << r.output;
  EXPECT_TRUE(fs::is_empty(dir / "elsewhere")) << "nothing written through the link";
}

TEST(OutputPathsTrain, ForceLeavesNoFileOfTheEarlierRun) {
  const fs::path run = testing::fresh_test_dir() / "run";
  const std::string train = "train configs/normlimits/ci_tiny.yaml --out " + run.string();
  ASSERT_EQ(testing::run_sinklab_in(SINKLAB_SOURCE_DIR, train).exit_code, 0);
  ASSERT_TRUE(fs::exists(run / "attention_snapshots.npz"));
  const testing::CliResult again =
      testing::run_sinklab_in(SINKLAB_SOURCE_DIR, train + " --force --set analysis.snapshot_every=0");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_FALSE(fs::exists(run / "attention_snapshots.npz")) << "the old model's maps would show in the new explorer";
  EXPECT_TRUE(fs::exists(run / "summary.json"));
}

}  // namespace
}  // namespace sinklab
