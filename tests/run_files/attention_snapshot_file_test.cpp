// attention_snapshots.npz: what is written reads back equal, with the documented arrays, types and
// shapes; a truncated, corrupt or incomplete file is refused with a message naming it.
#include "run_files/attention_snapshot_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>

#include "run_files/npy.h"
#include "run_files/npz_file.h"
#include "run_files/npz_reader.h"
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
    if (tokens)
      s.token_labels.push_back(i == 0   ? "<bos>"
                               : i == 1 ? std::string("\n")
                                        : std::string(1, static_cast<char>('a' + i)));
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

// What a run can have written bounds its file: an archive declaring more is refused before inflating.
TEST(AttentionSnapshotFile, ARunsOwnBoundRefusesALargerArchive) {
  const fs::path dir = testing::fresh_test_dir();
  const AttentionSnapshots s = two_snapshots(5, false);
  write_attention_snapshots(dir / kAttentionSnapshotsFile, s);
  EXPECT_EQ(read_attention_snapshots(dir / kAttentionSnapshotsFile, snapshot_file_bound(1, 10)), s);
  try {
    read_attention_snapshots(dir / kAttentionSnapshotsFile, 1000);
    ADD_FAILURE() << "a 1000-byte bound accepted the file";
  } catch (const AttentionSnapshotFileError& e) {
    EXPECT_NE(std::string(e.what()).find(kAttentionSnapshotsFile), std::string::npos) << e.what();
  }
  // One head, 10 steps: 12 snapshots of two 128 x 128 maps in float64 at most, plus the small entries.
  EXPECT_EQ(snapshot_file_bound(1, 10), uint64_t{12} * 2 * 128 * 128 * 8 + (uint64_t{1} << 24));
  EXPECT_EQ(snapshot_file_bound(int64_t{1} << 40, int64_t{1} << 40), kMaxNpzBytes);  // no overflow
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
  const NpzArrays arrays = read_npz(dir / "a.npz");
  std::vector<std::string> names;
  for (const auto& [name, array] : arrays) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"cols", "example", "mean", "roles", "rows", "seq_len", "steps",
                                             "token_labels", "tokens"}));
  EXPECT_EQ(arrays.at("steps").dtype, "<i8");
  EXPECT_EQ(arrays.at("mean").dtype, "<f4");
  EXPECT_EQ(arrays.at("example").dtype, "<f4");
  EXPECT_EQ(arrays.at("rows").dtype, "<i4");
  EXPECT_EQ(arrays.at("roles").dtype, "|u1");
  EXPECT_EQ(arrays.at("tokens").dtype, "<i4");
  EXPECT_EQ(arrays.at("token_labels").dtype, "|S");
  EXPECT_EQ(arrays.at("seq_len").dtype, "<i8");
  EXPECT_EQ(arrays.at("mean").shape, (std::vector<int64_t>{2, 2, 1, 5, 5}));
  EXPECT_EQ(arrays.at("mean").floats, s.mean);
  EXPECT_TRUE(arrays.at("seq_len").shape.empty());
  EXPECT_EQ(arrays.at("seq_len").integers, (std::vector<int64_t>{5}));
  EXPECT_EQ(arrays.at("steps").integers, (std::vector<int64_t>{0, 7}));
  EXPECT_EQ(arrays.at("token_labels").strings, s.token_labels);
  // Width: the longest label ("<bos>", 5 bytes); NumPy reads '|S5'.
  std::ifstream in(dir / "a.npz", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(bytes.find("'descr': '|S5'"), std::string::npos);
}

TEST(AttentionSnapshotFile, EqualSnapshotsGiveEqualBytes) {
  EXPECT_EQ(encode_attention_snapshots(two_snapshots(4, false), "a"),
            encode_attention_snapshots(two_snapshots(4, false), "b"));
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

// Checks on the decoded arrays: each mutation of a good file is one message naming the array.
std::string error_of(const NpzArrays& arrays) {
  try {
    decode_attention_snapshots(arrays, "x.npz");
  } catch (const AttentionSnapshotFileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(AttentionSnapshotFile, MissingArraysAndWrongShapesAreRefused) {
  const NpzArrays good = decode_npz(encode_attention_snapshots(two_snapshots(4, true), "x.npz"), "x.npz");
  ASSERT_EQ(error_of(good), "no error");
  const auto changed = [&](const std::string& name, auto&& change) {
    NpzArrays arrays = good;
    change(arrays, arrays[name]);
    return error_of(arrays);
  };
  const auto expect = [](const std::string& what, const std::string& part) {
    EXPECT_NE(what.find("attention snapshots x.npz: "), std::string::npos) << what;
    EXPECT_NE(what.find(part), std::string::npos) << what;
  };
  expect(changed("mean", [](NpzArrays& a, NpzArray&) { a.erase("mean"); }), "has no array 'mean'");
  expect(changed("example", [](NpzArrays&, NpzArray& e) { e.shape = {3}; }),
         "array 'example' has shape [3], expected [2, 2, 1, 4, 4]");
  expect(changed("steps", [](NpzArrays&, NpzArray& e) { e.integers = {7, 0}; }), "'steps' is not strictly increasing");
  expect(changed("steps", [](NpzArrays&, NpzArray& e) { e.integers = {}; e.shape = {0}; }), "'steps' is empty");
  expect(changed("steps", [](NpzArrays&, NpzArray& e) { e.dtype = "<f4"; }),
         "'steps' has dtype <f4, expected integers");
  expect(changed("rows", [](NpzArrays&, NpzArray& e) { e.integers[3] = 4; }),
         "'rows' is not the documented positions for seq_len 4");
  expect(changed("roles", [](NpzArrays&, NpzArray& e) { e.shape = {3}; }), "array 'roles' has shape [3], expected [4]");
  expect(changed("roles", [](NpzArrays&, NpzArray& e) { e.integers[0] = 300; }), "'roles' holds 300");
  expect(changed("seq_len", [](NpzArrays&, NpzArray& e) { e.integers = {0}; }), "seq_len 0 is out of range");
  expect(changed("tokens", [](NpzArrays&, NpzArray& e) { e.integers[1] = -1; }), "'tokens' holds -1");
  expect(changed("token_labels", [](NpzArrays&, NpzArray& e) { e.shape = {2}; }),
         "'token_labels' has shape [2], expected [4]");
  expect(changed("tokens", [](NpzArrays& a, NpzArray&) { a.erase("tokens"); }), "has 'token_labels' but no 'tokens'");
  expect(changed("mean", [](NpzArrays&, NpzArray& e) { e.dtype = "<i4"; }), "'mean' has dtype <i4, expected floats");
}

TEST(AttentionSnapshotFile, FloatSixteenMapsReadAsFloats) {
  // A copy made with numpy (mean.astype(np.float16)) reads like the original, rounded.
  const AttentionSnapshots s = two_snapshots(4, false);
  NpzArrays arrays = decode_npz(encode_attention_snapshots(s, "x.npz"), "x.npz");
  arrays["mean"].dtype = "<f2";
  EXPECT_EQ(decode_attention_snapshots(arrays, "x.npz").mean, s.mean);
}

}  // namespace
}  // namespace sinklab
