// check_output_path (run_files/output_path.h): no output replaces or goes inside a file a run owns, in any
// run folder and whatever the spelling; none replaces a device, FIFO or folder; none goes through a
// symlinked folder inside a run folder or inside the command's own output folder.
#include "run_files/output_path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "run_files/run_folder.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

using testing::fresh_test_dir;
using testing::write_text;

// The message of the refusal of `path`, or "" when it is accepted.
std::string refusal(const fs::path& path, OutputKind kind, const fs::path& within = {}) {
  try {
    check_output_path(path, kind, "--out", within);
    return "";
  } catch (const OutputPathError& e) {
    return e.what();
  }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A finished run's folder: summary.json and config.yaml.
fs::path make_run(const fs::path& dir) {
  write_text(dir / "config.yaml", "name: x\n");
  write_text(dir / "summary.json", "{}\n");
  return dir;
}

const char* const kOwnedNames[] = {"summary.json",   "checkpoint.bin",          "metrics.jsonl", "run.json",
                                   "config.yaml",    "attention_snapshots.npz", "train.log",     ".lock",
                                   "checkpoint.bin.tmp", "summary.json.tmp",    "attention",
                                   // a temporary of any writer (core/io/file_write.h)
                                   "summary.json.4711-9f3a0c2e.tmp", "attention_snapshots.npz.12-0000abcd.tmp"};

TEST(OutputPath, RefusesEveryFileARunOwns) {
  const fs::path run = make_run(fresh_test_dir() / "run");
  for (const char* name : kOwnedNames) {
    SCOPED_TRACE(name);
    const std::string message = refusal(run / name, OutputKind::file);
    EXPECT_TRUE(contains(message, "--out: " + (run / name).string() + " is one of the run's own files")) << message;
  }
  EXPECT_NE(refusal(run / "attention" / "layer0_head0_mean.npy", OutputKind::file), "");
  EXPECT_NE(refusal(run / "attention", OutputKind::folder), "");
  EXPECT_NE(refusal(run / "attention" / "new_run", OutputKind::folder), "") << "a folder inside attention/";
}

TEST(OutputPath, AcceptsOtherNamesInARunAndRunNamesOutsideOne) {
  const fs::path dir = fresh_test_dir();
  const fs::path run = make_run(dir / "run");
  EXPECT_EQ(refusal(run / "eval" / "mine.json", OutputKind::file), "");
  EXPECT_EQ(refusal(run / "notes.json", OutputKind::file), "");
  EXPECT_EQ(refusal(run / "report", OutputKind::folder), "");
  EXPECT_EQ(refusal(run, OutputKind::folder), "") << "a run folder itself (train --force)";
  fs::create_directories(dir / "plain");  // no run file: its names are free
  EXPECT_EQ(refusal(dir / "plain" / "checkpoint.bin", OutputKind::file), "");
  EXPECT_EQ(refusal(dir / "missing" / "summary.json", OutputKind::file), "");
}

TEST(OutputPath, AnyRunFolderCountsNotOnlyAFinishedOne) {
  const fs::path dir = fresh_test_dir();
  write_text(dir / "unfinished" / "metrics.jsonl", "");  // a run killed before its summary
  EXPECT_NE(refusal(dir / "unfinished" / "metrics.jsonl", OutputKind::file), "");
  write_text(dir / "snapshots_only" / "attention_snapshots.npz", "");
  EXPECT_NE(refusal(dir / "snapshots_only" / "attention_snapshots.npz", OutputKind::file), "");
}

TEST(OutputPath, RefusesWhateverTheSpelling) {
  const fs::path dir = fresh_test_dir();
  const fs::path run = make_run(dir / "run");
  fs::create_directories(run / "eval");
  fs::create_directories(dir / "elsewhere");
  fs::create_directory_symlink(run, dir / "elsewhere" / "link_to_run");
  EXPECT_NE(refusal(run / "eval" / ".." / "checkpoint.bin", OutputKind::file), "");
  EXPECT_NE(refusal(run / "." / "summary.json", OutputKind::file), "");
  EXPECT_NE(refusal(dir / "elsewhere" / "link_to_run" / "checkpoint.bin", OutputKind::file), "");
  EXPECT_NE(refusal(dir / "elsewhere" / "link_to_run" / "eval" / ".." / "run.json", OutputKind::file), "");
  // Relative to the working directory.
  const fs::path cwd = fs::current_path();
  fs::current_path(run / "eval");
  const std::string relative = refusal("../metrics.jsonl", OutputKind::file);
  fs::current_path(cwd);
  EXPECT_TRUE(contains(relative, "--out: ../metrics.jsonl is one of the run's own files")) << relative;
  // A folder reached through a link: the link's target decides.
  fs::create_directory_symlink(run / "attention", dir / "elsewhere" / "link_to_maps");
  fs::create_directories(run / "attention");
  EXPECT_NE(refusal(dir / "elsewhere" / "link_to_maps", OutputKind::folder), "");
}

TEST(OutputPath, RefusesDevicesFifosAndFoldersAndLeavesThemAlone) {
  const fs::path dir = fresh_test_dir();
  const std::string device = refusal("/dev/null", OutputKind::file);
  EXPECT_TRUE(contains(device, "--out: /dev/null is a character device")) << device;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));

  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  const std::string fifo = refusal(dir / "fifo", OutputKind::file);
  EXPECT_TRUE(contains(fifo, "is a FIFO")) << fifo;
  EXPECT_TRUE(contains(refusal(dir / "fifo", OutputKind::folder), "is a FIFO, not a folder"));
  EXPECT_TRUE(contains(refusal(dir / "fifo" / "inside.json", OutputKind::file), "which is a FIFO, not a folder"));
  EXPECT_TRUE(fs::is_fifo(dir / "fifo"));

  fs::create_directories(dir / "folder");
  EXPECT_TRUE(contains(refusal(dir / "folder", OutputKind::file), "is a folder"));
  write_text(dir / "file", "x");
  EXPECT_TRUE(contains(refusal(dir / "file", OutputKind::folder), "is a file, not a folder"));
  EXPECT_EQ(refusal(dir / "file", OutputKind::file), "") << "a regular file is replaced";
}

TEST(OutputPath, AFileOutputsFinalSymlinkIsReplacedNotFollowed) {
  const fs::path dir = fresh_test_dir();
  fs::create_symlink("/dev/null", dir / "link.json");
  EXPECT_EQ(refusal(dir / "link.json", OutputKind::file), "");
}

TEST(OutputPath, RefusesASymlinkedFolderInsideARunFolder) {
  const fs::path dir = fresh_test_dir();
  const fs::path run = make_run(dir / "run");
  fs::create_directories(dir / "elsewhere");
  fs::create_directories(run / "report");
  fs::create_directory_symlink(dir / "elsewhere", run / "report" / "figures");
  const std::string message = refusal(run / "report" / "figures" / "loss.gp", OutputKind::file);
  EXPECT_TRUE(contains(message, "goes through " + (run / "report" / "figures").string() +
                                    ", a symbolic link inside the run folder " + run.string()))
      << message;
  EXPECT_NE(refusal(run / "report" / "figures", OutputKind::folder), "");
  fs::create_directory_symlink(dir / "elsewhere", run / "eval");
  EXPECT_NE(refusal(run / "eval" / "x.json", OutputKind::file), "");
  EXPECT_TRUE(fs::is_empty(dir / "elsewhere"));
}

TEST(OutputPath, RefusesASymlinkedFolderInsideTheCommandsOutputFolder) {
  const fs::path dir = fresh_test_dir();  // a sweep's report: no run folder around it
  fs::create_directories(dir / "report");
  fs::create_directories(dir / "elsewhere");
  fs::create_directory_symlink(dir / "elsewhere", dir / "report" / "figures");
  const std::string message = refusal(dir / "report" / "figures", OutputKind::folder, dir / "report");
  EXPECT_TRUE(contains(message, (dir / "report" / "figures").string() + " is a symbolic link inside the output folder"))
      << message;
  EXPECT_EQ(refusal(dir / "report" / "figures", OutputKind::folder), "") << "outside a run, only `within` forbids it";
  // The output folder itself may be a link the user chose.
  fs::create_directory_symlink(dir / "elsewhere", dir / "chosen");
  EXPECT_EQ(refusal(dir / "chosen" / "figures", OutputKind::folder, dir / "chosen"), "");
}

TEST(OutputPath, IsAFileWriteError) {
  const fs::path run = make_run(fresh_test_dir() / "run");
  EXPECT_THROW(check_output_path(run / "checkpoint.bin", OutputKind::file, "--out"), FileWriteError);
  EXPECT_THROW(check_output_path("", OutputKind::file, "--out"), OutputPathError);
  EXPECT_THROW(check_output_path("-", OutputKind::file, "--out"), OutputPathError) << "no file called '-'";
}

}  // namespace
}  // namespace sinklab
