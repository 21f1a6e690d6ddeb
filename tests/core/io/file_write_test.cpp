#include "core/io/file_write.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/small_tmpfs.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = testing::fresh_test_dir() / name;
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Names in dir that are temporaries of some writer (core/io/file_write.h).
std::vector<std::string> temporaries_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!final_name_of_temporary(name).empty()) names.push_back(name);
  }
  return names;
}

TEST(WriteFileAtomically, WritesAndReplaces) {
  const fs::path dir = scratch("replace");
  write_file_atomically(dir / "a.json", "first");
  write_file_atomically(dir / "a.json", "second");
  EXPECT_EQ(slurp(dir / "a.json"), "second");
  EXPECT_EQ(temporaries_in(dir), std::vector<std::string>{});
}

TEST(WriteFileAtomically, ReplacesASymlinkInsteadOfWritingThroughIt) {
  const fs::path dir = scratch("symlink");
  std::ofstream(dir / "victim") << "keep me";
  fs::create_symlink(dir / "victim", dir / "summary.json");
  fs::create_symlink(dir / "victim", dir / "summary.json.tmp");  // at the temporary name of earlier versions
  write_file_atomically(dir / "summary.json", "new");
  EXPECT_EQ(slurp(dir / "victim"), "keep me");
  EXPECT_TRUE(fs::is_symlink(dir / "summary.json.tmp"));  // not this writer's: left alone
  EXPECT_FALSE(fs::is_symlink(dir / "summary.json"));
  EXPECT_EQ(slurp(dir / "summary.json"), "new");
}

TEST(WriteFileAtomically, DiskFullLeavesTheOldFileAndNoTemporary) {
  testing::SmallTmpfs disk(64 * 1024);
  if (!disk.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const fs::path target = disk.dir() / "summary.json";
  write_file_atomically(target, "old");
  const std::string big(256 * 1024, 'x');
  try {
    write_file_atomically(target, big);
    FAIL() << "a write larger than the disk succeeded";
  } catch (const FileWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("summary.json."), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(".tmp: write failed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(target), "old");
  EXPECT_EQ(temporaries_in(disk.dir()), std::vector<std::string>{});
}

TEST(WriteFileAtomically, WritesPiecesOneAfterAnother) {
  const fs::path dir = scratch("pieces");
  const std::string big(100000, 'b');
  const std::string_view pieces[] = {"head|", "", big, "|tail"};
  write_file_atomically(dir / "c.bin", pieces);
  EXPECT_EQ(slurp(dir / "c.bin"), "head|" + big + "|tail");
  write_file_atomically(dir / "c.bin", std::span<const std::string_view>());
  EXPECT_EQ(slurp(dir / "c.bin"), "");
  EXPECT_EQ(temporaries_in(dir), std::vector<std::string>{});
}

// Whole MiB blocks of zeros (a step-0 checkpoint's AdamW moments) are skipped, not written: the file reads
// back byte for byte, has its full size when it ends in zeros, and the disk holds less than its size.
TEST(WriteFileAtomically, ZeroBlocksBecomeHolesThatReadBackAsZeros) {
  const fs::path dir = scratch("holes");
  const std::string zeros(3 << 20, '\0'), tail_zeros(2 << 20, '\0');
  std::string almost(1 << 20, '\0');
  almost[12345] = 'z';  // one byte is enough for a block to be written
  const std::string_view pieces[] = {"head", zeros, "mid", almost, tail_zeros};
  write_file_atomically(dir / "sparse.bin", pieces);
  const std::string expected = "head" + zeros + "mid" + almost + tail_zeros;
  const std::string got = slurp(dir / "sparse.bin");
  ASSERT_EQ(got.size(), expected.size()) << "a file ending in a hole must still have its full size";
  EXPECT_TRUE(got == expected) << "the bytes differ";
  struct stat st {};
  ASSERT_EQ(::stat((dir / "sparse.bin").c_str(), &st), 0);
  EXPECT_LT(static_cast<uint64_t>(st.st_blocks) * 512, expected.size() - (3u << 20))
      << "the zero blocks were written out (no holes)";
}

TEST(WriteFileAtomically, DiskFullInALaterPieceLeavesTheOldFileAndNoTemporary) {
  testing::SmallTmpfs disk(64 * 1024);
  if (!disk.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const fs::path target = disk.dir() / "model.ckpt";
  write_file_atomically(target, "old");
  const std::string part(40 * 1024, 'x');
  const std::string_view pieces[] = {part, part, part};
  EXPECT_THROW(write_file_atomically(target, pieces), FileWriteError);
  EXPECT_EQ(slurp(target), "old");
  EXPECT_EQ(temporaries_in(disk.dir()), std::vector<std::string>{});
}

TEST(WriteFileAtomically, MissingFolderNamesThePath) {
  const fs::path dir = scratch("missing");
  try {
    write_file_atomically(dir / "no" / "x.json", "x");
    FAIL();
  } catch (const FileWriteError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "no" / "x.json.").string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(".tmp: cannot create"), std::string::npos) << e.what();
  }
}

TEST(AppendFile, TruncatesToTheKeptPrefixThenAppends) {
  const fs::path dir = scratch("append");
  {
    AppendFile log(dir / "m.jsonl", 0);
    log.append("line1\n");
    log.append("line2\n");
    EXPECT_EQ(log.size(), 12u);
  }
  {
    AppendFile log(dir / "m.jsonl", 6);  // resume after line1
    log.append("again\n");
    log.sync();
  }
  EXPECT_EQ(slurp(dir / "m.jsonl"), "line1\nagain\n");
}

TEST(AppendFile, RefusesAShorterLogThanRecorded) {
  const fs::path dir = scratch("short");
  std::ofstream(dir / "m.jsonl") << "abc";
  EXPECT_THROW(AppendFile(dir / "m.jsonl", 10), FileWriteError);
}

TEST(AppendFile, RefusesASymlink) {
  const fs::path dir = scratch("append-symlink");
  std::ofstream(dir / "victim") << "keep";
  fs::create_symlink(dir / "victim", dir / "m.jsonl");
  EXPECT_THROW(AppendFile(dir / "m.jsonl", 0), FileWriteError);
  EXPECT_EQ(slurp(dir / "victim"), "keep");
}

TEST(AppendFile, DiskFullIsAnError) {
  testing::SmallTmpfs disk(16 * 1024);
  if (!disk.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  AppendFile log(disk.dir() / "m.jsonl", 0);
  const std::string line(999, 'y');
  int whole = 0;
  EXPECT_THROW(
      {
        for (; whole < 100; ++whole) log.append(line + "\n");
      },
      FileWriteError);
  EXPECT_EQ(std::filesystem::file_size(disk.dir() / "m.jsonl"), static_cast<uintmax_t>(whole) * 1000u)
      << "the failed append left a partial line";
}

}  // namespace
}  // namespace sinklab
