// run_files/run_folder.h: which files make a folder a run folder, and what `train --force` (clear_run_files)
// removes: every file a run writes, so nothing of an earlier run survives into the new one.
#include "run_files/run_folder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <string>
#include <thread>
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

// `train --force` while a `report` writes into the run's report/ (the concurrency stress test's finding):
// files appear and vanish in the folder while it is cleared. Removing it in place failed with "directory
// not empty" or "no such file" in most rounds; renamed aside first, the clearing never fails, and nothing
// of the folder is left but what the writer created after the clearing.
TEST(RunFolder, ClearingRacesNoWriterOfItsReportFolder) {
  const fs::path run = fresh_test_dir() / "run";
  std::atomic<bool> stop{false};
  int failures = 0;
  for (int round = 0; round < 40; ++round) {
    fs::create_directories(run / "report");
    write_text(run / "summary.json", "old run");
    stop = false;
    std::thread writer([&] {  // as a report: temporaries written, then renamed to their final names
      for (int i = 0; !stop; ++i) {
        const fs::path tmp = run / "report" / ("figure" + std::to_string(i % 7) + ".svg.4711-0000abcd.tmp");
        std::FILE* f = std::fopen(tmp.c_str(), "w");
        if (!f) continue;  // the folder is gone: a real writer says so and stops
        std::fputs("<svg/>", f);
        std::fclose(f);
        std::error_code ec;
        fs::rename(tmp, run / "report" / ("figure" + std::to_string(i % 7) + ".svg"), ec);
      }
    });
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (round % 5)));
    try {
      clear_run_files(run);
    } catch (const std::exception& e) {
      ++failures;
      ADD_FAILURE() << "round " << round << ": " << e.what();
    }
    stop = true;
    writer.join();
    EXPECT_FALSE(fs::exists(run / "summary.json"));
    for (const fs::directory_entry& e : fs::directory_iterator(run))
      EXPECT_EQ(e.path().filename().string().find(".cleared"), std::string::npos) << e.path();
    if (failures > 3) break;
  }
}

}  // namespace
}  // namespace sinklab
