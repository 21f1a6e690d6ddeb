// .npz archives (run_files/npz_file.h): what numpy.load needs — one stored "<name>.npy" entry per
// tensor, readable as .npy, plus text entries — and the same bytes for the same input.
#include <gtest/gtest.h>
#include <zip.h>

#include <string>
#include <vector>

#include "run_files/npy.h"
#include "run_files/npz_file.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::fresh_test_dir;
using sinklab::testing::read_text;
using sinklab::testing::write_text;

struct Entry {
  std::string name;
  zip_uint16_t method;
  std::string bytes;
};

// Every entry of an archive, in order, with its compression method and content.
std::vector<Entry> entries_of(const std::string& archive_bytes) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(archive_bytes.data(), archive_bytes.size(), 0, &error);
  zip_t* archive = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  EXPECT_NE(archive, nullptr) << zip_error_strerror(&error);
  std::vector<Entry> out;
  if (archive == nullptr) return out;
  for (zip_int64_t i = 0; i < zip_get_num_entries(archive, 0); ++i) {
    zip_stat_t st;
    zip_stat_index(archive, static_cast<zip_uint64_t>(i), 0, &st);
    Entry e{st.name, st.comp_method, std::string(st.size, '\0')};
    zip_file_t* f = zip_fopen_index(archive, static_cast<zip_uint64_t>(i), 0);
    EXPECT_EQ(zip_fread(f, e.bytes.data(), st.size), static_cast<zip_int64_t>(st.size));
    zip_fclose(f);
    out.push_back(std::move(e));
  }
  zip_close(archive);
  return out;
}

TEST(Npz, OneStoredNpyEntryPerTensorThenTheTextEntries) {
  const auto dir = fresh_test_dir();
  const std::vector<NamedTensor> tensors{{"blocks.0.attn.w_q.weight", {2, 3}, {1, 2, 3, 4, 5, -6}},
                                         {"scale", {1}, {0.5f}}};
  write_npz(dir / "m.npz", tensors, {{"config.yaml", "seed: 0\n"}});
  const std::vector<Entry> entries = entries_of(read_text(dir / "m.npz"));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].name, "blocks.0.attn.w_q.weight.npy");
  EXPECT_EQ(entries[1].name, "scale.npy");
  EXPECT_EQ(entries[2].name, "config.yaml");
  EXPECT_EQ(entries[2].bytes, "seed: 0\n");
  for (const Entry& e : entries) EXPECT_EQ(e.method, ZIP_CM_STORE) << e.name;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_EQ(entries[i].bytes, encode_npy(tensors[i].values, tensors[i].shape, "x"));
    write_text(dir / entries[i].name, entries[i].bytes);
    const NpyArray a = read_npy(dir / entries[i].name);
    EXPECT_EQ(a.shape, tensors[i].shape);
    EXPECT_EQ(a.data, tensors[i].values);
  }
}

TEST(Npz, SameInputSameBytes) {
  const std::vector<NamedTensor> tensors{{"w", {2}, {1, 2}}};
  const std::string a = encode_npz(tensors, {{"config.yaml", "x"}}, "a");
  EXPECT_EQ(a.rfind("PK\x03\x04", 0), 0u) << "a zip local file header first";
  EXPECT_EQ(encode_npz(tensors, {{"config.yaml", "x"}}, "b"), a);
}

TEST(Npz, RefusesRepeatedNamesAndShortValues) {
  EXPECT_THROW(encode_npz({{"w", {1}, {1}}}, {{"w.npy", "x"}}, "x"), NpzError);
  EXPECT_THROW(encode_npz({{"w", {3}, {1}}}, {}, "x"), NpzError);
  EXPECT_THROW(encode_npz({{"", {1}, {1}}}, {}, "x"), NpzError);
}

}  // namespace
}  // namespace sinklab
