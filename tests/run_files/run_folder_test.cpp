// run_files/run_folder.h: which files make a folder a run folder, and what `train --force` (clear_run_files)
// removes: every file a run writes, so nothing of an earlier run survives into the new one.
#include "run_files/run_folder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include "run_files/output_path.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

using testing::fresh_test_dir;
using testing::write_text;

TEST(RunFolder, ClearRunFilesRemovesEveryFileARunWrites) {
  const fs::path run = fresh_test_dir() / "run";
  for (const char* name : {"summary.json", "checkpoint.bin", "metrics.jsonl", "run.json", "config.yaml",
                           "attention_snapshots.npz", "attention_snapshots.npz.tmp", "checkpoint.bin.tmp",
                           // temporaries that killed writers left (core/io/file_write.h)
                           "checkpoint.bin.4711-9f3a0c2e.tmp", "summary.json.12-0000abcd.tmp"})
    write_text(run / name, "old run");
  write_text(run / "attention" / "layer0_head0_mean.npy", "old map");
  write_text(run / "eval" / "none.json", "old eval");
  write_text(run / "notes.txt", "the user's own");
  write_text(run / "train.log", "compare's log of the child now running");
  clear_run_files(run);
  std::vector<std::string> left;
  for (const fs::directory_entry& e : fs::directory_iterator(run)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"notes.txt", "train.log"}));
  EXPECT_EQ(inspect_run_folder(run), RunFolderState::empty);
}

// What `train --resume` does under the run folder's lock: a killed writer's temporary goes (a checkpoint's
// can be gigabytes, and every kill would leave one more), the run itself and everything else stays.
TEST(RunFolder, RemoveRunFileTemporariesLeavesTheRunAndEverythingElse) {
  const fs::path run = fresh_test_dir() / "run";
  for (const char* name : {"summary.json", "checkpoint.bin", "checkpoint.bin.4711-9f3a0c2e.tmp", "run.json.tmp",
                           "notes.txt", "notes.txt.4711-9f3a0c2e.tmp", "train.log"})
    write_text(run / name, "x");
  write_text(run / "attention" / "layer0_head0_mean.npy", "map");
  write_text(run / "attention" / "layer0_head0_mean.npy.4711-9f3a0c2e.tmp", "half a map");
  remove_run_file_temporaries(run);
  std::vector<std::string> left;
  for (const fs::directory_entry& e : fs::directory_iterator(run)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"attention", "checkpoint.bin", "notes.txt", "notes.txt.4711-9f3a0c2e.tmp",
                                            "summary.json", "train.log"}));
  EXPECT_EQ(std::distance(fs::directory_iterator(run / "attention"), fs::directory_iterator()), 1);
}

TEST(RunFolder, AFolderWithOnlySnapshotsHoldsAnUnfinishedRun) {
  const fs::path run = fresh_test_dir() / "run";
  write_text(run / "attention_snapshots.npz", "");
  EXPECT_EQ(inspect_run_folder(run), RunFolderState::unfinished);
  EXPECT_THROW(check_new_run_folder(run, "", "", false, "hint"), std::invalid_argument);
}

TEST(RunFolder, TheLockAndTheLogAloneDoNotMakeARun) {
  const fs::path dir = fresh_test_dir() / "fresh";  // compare creates both before `train` starts in it
  write_text(dir / ".lock", "123");
  write_text(dir / "train.log", "");
  EXPECT_EQ(inspect_run_folder(dir), RunFolderState::empty);
  EXPECT_NO_THROW(check_new_run_folder(dir, "", "", false, "hint"));
}

TEST(RunFolder, ANewRunFolderFollowsTheOutputRule) {
  const fs::path dir = fresh_test_dir();
  write_text(dir / "run" / "summary.json", "{}");
  fs::create_directories(dir / "run" / "attention");
  EXPECT_THROW(check_new_run_folder(dir / "run" / "attention" / "new", "", "", true, "hint"), OutputPathError);
  write_text(dir / "a_file", "");
  EXPECT_THROW(check_new_run_folder(dir / "a_file", "", "", true, "hint"), OutputPathError);
}

}  // namespace
}  // namespace sinklab
