// attention_snapshots.npz: what is written reads back equal, with the documented arrays, types and
// shapes; a truncated, corrupt or incomplete file is refused with a message naming it.
#include "run_files/attention_snapshot_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "run_files/npy.h"
#include "run_files/npz_file.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

AttentionSnapshots two_snapshots(int T, bool tokens) {
  AttentionSnapshots s;
  s.layers = 2;
  s.heads = 1;
  s.seq_len = T;
  s.positions = snapshot_positions(T);
  s.steps = {0, 7};
  for (size_t i = 0; i < 2 * s.block(); ++i) {
    s.mean.push_back(static_cast<float>(i) * 0.25f);
    s.example.push_back(1.0f - static_cast<float>(i) * 0.5f);
  }
  for (int i = 0; i < T; ++i) {
    s.roles.push_back(static_cast<uint8_t>(i == 0 ? 1 : 2));
    if (tokens) s.tokens.push_back(100 + i);
  }
  return s;
}

std::string what_of(const fs::path& path) {
  try {
    read_attention_snapshots(path);
  } catch (const AttentionSnapshotFileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(AttentionSnapshotFile, ReadsBackWhatWasWritten) {
  const fs::path dir = testing::fresh_test_dir();
  for (bool tokens : {false, true}) {
    const AttentionSnapshots s = two_snapshots(5, tokens);
    write_attention_snapshots(dir / kAttentionSnapshotsFile, s);
    EXPECT_EQ(read_attention_snapshots(dir / kAttentionSnapshotsFile), s) << tokens;
  }
}

TEST(AttentionSnapshotFile, HoldsTheDocumentedArrays) {
  const fs::path dir = testing::fresh_test_dir();
  const AttentionSnapshots s = two_snapshots(5, true);
  write_attention_snapshots(dir / "a.npz", s);
  std::map<std::string, std::string> entries;
  for (auto& [name, bytes] : read_npz_entries(dir / "a.npz")) entries[name] = bytes;
  const std::vector<std::string> names{"cols.npy", "example.npy", "mean.npy", "roles.npy", "rows.npy", "seq_len.npy", "steps.npy", "tokens.npy"};
  std::vector<std::string> got;
  for (const auto& [name, bytes] : entries) got.push_back(name);
  EXPECT_EQ(got, names);
  const auto descr = [&](const std::string& name) {
    const std::string& b = entries[name];
    const size_t at = b.find("'descr': '") + 10;
    return b.substr(at, b.find('\'', at) - at);
  };
  EXPECT_EQ(descr("steps.npy"), "<i8");
  EXPECT_EQ(descr("mean.npy"), "<f4");
  EXPECT_EQ(descr("rows.npy"), "<i4");
  EXPECT_EQ(descr("roles.npy"), "|u1");
  EXPECT_EQ(descr("tokens.npy"), "<i4");
  EXPECT_EQ(descr("seq_len.npy"), "<i8");
  const NpyArray mean = decode_npy(entries["mean.npy"], "mean");
  EXPECT_EQ(mean.shape, (std::vector<int64_t>{2, 2, 1, 5, 5}));
  EXPECT_EQ(mean.data, s.mean);
  const NpyIntArray seq_len = decode_npy_integers(entries["seq_len.npy"], "seq_len");
  EXPECT_TRUE(seq_len.shape.empty());
  EXPECT_EQ(seq_len.data, (std::vector<int64_t>{5}));
  EXPECT_EQ(decode_npy_integers(entries["steps.npy"], "steps").data, (std::vector<int64_t>{0, 7}));
}

TEST(AttentionSnapshotFile, EqualSnapshotsGiveEqualBytes) {
  EXPECT_EQ(encode_attention_snapshots(two_snapshots(4, false), "a"), encode_attention_snapshots(two_snapshots(4, false), "b"));
}

TEST(AttentionSnapshotFile, TruncatedOrCorruptFilesAreRefusedByName) {
  const fs::path dir = testing::fresh_test_dir();
  const std::string bytes = encode_attention_snapshots(two_snapshots(6, false), "x");
  const fs::path truncated = dir / "truncated.npz", corrupt = dir / "corrupt.npz", missing = dir / "missing.npz";
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::string flipped = bytes;
  const size_t mean_data = bytes.find("\x93NUMPY", bytes.find("mean.npy")) + 200;
  flipped[mean_data] ^= 0x5a;  // inside the mean array's data: its CRC no longer matches
  std::ofstream(corrupt, std::ios::binary) << flipped;
  for (const fs::path& p : {truncated, corrupt, missing}) {
    const std::string what = what_of(p);
    EXPECT_NE(what.find("attention snapshots " + p.string()), std::string::npos) << what;
  }
  EXPECT_NE(what_of(missing).find("missing"), std::string::npos) << what_of(missing);
  EXPECT_NE(what_of(corrupt).find("corrupt"), std::string::npos) << what_of(corrupt);
}

TEST(AttentionSnapshotFile, MissingArraysAndWrongShapesAreRefused) {
  const fs::path dir = testing::fresh_test_dir();
  const AttentionSnapshots s = two_snapshots(4, false);
  NpzTextEntries entries;
  for (auto& e : read_npz_entries([&] {
         write_attention_snapshots(dir / "good.npz", s);
         return dir / "good.npz";
       }()))
    entries.push_back(e);
  const auto write_without = [&](const std::string& name, const std::string& replacement) {
    NpzTextEntries kept;
    for (const auto& e : entries)
      if (e.first != name) kept.push_back(e);
      else if (!replacement.empty()) kept.emplace_back(name, replacement);
    write_npz(dir / "bad.npz", {}, kept);
    return what_of(dir / "bad.npz");
  };
  EXPECT_NE(write_without("mean.npy", "").find("has no array 'mean'"), std::string::npos);
  const std::vector<float> short_example(3, 0.0f);
  EXPECT_NE(write_without("example.npy", encode_npy(short_example, {3}, "e")).find("array 'example' has shape [3], expected [2, 2, 1, 4, 4]"),
            std::string::npos)
      << write_without("example.npy", encode_npy(short_example, {3}, "e"));
  const std::vector<int64_t> backwards{7, 0};
  EXPECT_NE(write_without("steps.npy", encode_npy_typed("<i8", backwards.data(), 8, 2, {2}, "s")).find("not strictly increasing"),
            std::string::npos);
  EXPECT_NE(write_without("seq_len.npy", "not an npy file").find("bad magic"), std::string::npos);
}

}  // namespace
}  // namespace sinklab
