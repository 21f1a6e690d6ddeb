#include "cluster/run_folder_transfer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "core/io/file_write.h"
#include "run_files/run_folder_lock.h"

namespace sinklab::cluster {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every file under dir by relative path, with its bytes.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).generic_string()] = read(e.path());
  return files;
}

class RunFolderTransfer : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("sinklab_transfer_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root);
    source = root / "worker" / "run_seed=0";
    target = root / "rank0" / "runs" / "run_seed=0";
    fs::create_directories(target.parent_path());
    write(source / "summary.json", "{\"steps\": 3}");
    write(source / "metrics.jsonl", "{\"step\": 0}\n{\"step\": 1}\n");
    write(source / "attention" / "layer0_head0_mean.npy", std::string("\x93NUMPY\0\1binary", 14));
    write(source / "checkpoint.bin", std::string(70000, '\x7f'));
  }
  void TearDown() override { fs::remove_all(root); }

  // Leftovers a failed or successful install must not leave next to the run folder.
  void expect_no_temporary_folders() {
    for (const auto& e : fs::directory_iterator(target.parent_path()))
      EXPECT_EQ(e.path().filename().string().front() == '.', false) << e.path();
  }

  fs::path root, source, target;
};

TEST_F(RunFolderTransfer, ARunFolderArrivesWithEveryFileAndTheirBytes) {
  write(source / ".lock", "1234");
  write(source / "summary.json.tmp", "half");
  install_run_folder(pack_run_folder(source), target);
  auto expected = files_of(source);
  expected.erase(".lock");
  expected.erase("summary.json.tmp");
  EXPECT_EQ(files_of(target), expected);
  EXPECT_EQ(expected.size(), 4u);
  expect_no_temporary_folders();
}

TEST_F(RunFolderTransfer, ItReplacesAnUnfinishedFolderWhole) {
  write(target / "checkpoint.bin", "old");
  write(target / "stale.txt", "from an interrupted attempt");
  install_run_folder(pack_run_folder(source), target);
  EXPECT_FALSE(fs::exists(target / "stale.txt"));
  EXPECT_EQ(read(target / "checkpoint.bin"), std::string(70000, '\x7f'));
  expect_no_temporary_folders();
}

TEST_F(RunFolderTransfer, AMissingFolderPacksAsNoFiles) {
  install_run_folder(pack_run_folder(root / "nothing"), target);
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_TRUE(files_of(target).empty());
}

TEST_F(RunFolderTransfer, MalformedArchivesChangeNothing) {
  write(target / "checkpoint.bin", "old");
  const std::string packed = pack_run_folder(source);
  // Cut inside the last file, a wrong magic, and a path that leaves the folder.
  EXPECT_THROW(install_run_folder(packed.substr(0, packed.size() - 10), target), RunFolderTransferError);
  std::string bad_magic = packed;
  bad_magic[0] = 'X';
  EXPECT_THROW(install_run_folder(bad_magic, target), RunFolderTransferError);
  std::string escaping("SINKRUN1", 8);
  escaping += std::string("\x01\0\0\0", 4) + std::string("\x0b\0\0\0", 4) + "../evil.txt" +
              std::string("\x01\0\0\0\0\0\0\0", 8) + "x";
  EXPECT_THROW(install_run_folder(escaping, target), RunFolderTransferError);
  EXPECT_FALSE(fs::exists(target.parent_path() / "evil.txt"));
  std::string trailing = packed + "z";
  EXPECT_THROW(install_run_folder(trailing, target), RunFolderTransferError);
  EXPECT_EQ(files_of(target), (std::map<std::string, std::string>{{"checkpoint.bin", "old"}}));
  expect_no_temporary_folders();
}

TEST_F(RunFolderTransfer, AFolderATrainingHoldsIsNotReplaced) {
  write(target / "checkpoint.bin", "old");
  const RunFolderLock held(target);  // as a running `train` holds it
  EXPECT_THROW(install_run_folder(pack_run_folder(source), target), RunFolderBusy);
  EXPECT_EQ(read(target / "checkpoint.bin"), "old");
  EXPECT_FALSE(fs::exists(target / "summary.json"));
  expect_no_temporary_folders();
}

}  // namespace
}  // namespace sinklab::cluster
