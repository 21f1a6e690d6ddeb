// Checkpoint formats 3 and 4 (run_files/checkpoint_file.h): format 4 is written, its data checksum is
// XXH3-64 and a damaged data byte or an FNV-1a checksum in its place is refused; the committed format-3
// file (tests/fixtures/checkpoints/) still reads, resumes and is judged intact, and is rewritten as format 4.
#include <gtest/gtest.h>
#include <unistd.h>
#include <xxhash.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/fnv1a.h"
#include "run_files/checkpoint_file.h"
#include "tests/support/awkward_floats.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

constexpr size_t kVersionAt = 8, kTableBytesAt = 28, kTableSumAt = 44, kDataSumAt = 52, kHeaderBytes = 60;

// What tests/fixtures/checkpoints/format3_small.bin holds (its README.md says how it was written).
const fs::path kFormat3File = fs::path(SINKLAB_SOURCE_DIR) / "tests/fixtures/checkpoints/format3_small.bin";
const CheckpointHashes kFormat3Hashes{0x1111, 0x2222};

ParameterStore small_store() {
  ParameterStore s;
  s.declare("a", Shape{3});
  s.declare("b.weight", Shape{2, 2});
  s.finalize();
  return s;
}

ParameterStore filled_small_store() {
  ParameterStore s = small_store();
  testing::fill_awkward_floats(s.values(), 1.0f);
  testing::fill_awkward_floats(s.moment(0), 2.0f);
  testing::fill_awkward_floats(s.moment(1), 3.0f);
  return s;
}

// Each parameter's bits in `block` (the values or a moment), the store's alignment padding left out.
std::vector<uint32_t> bits_of(const ParameterStore& s, std::span<const float> block) {
  std::vector<uint32_t> out;
  for (const ParameterInfo& p : s.parameters()) {
    const std::span<const float> v = block.subspan(p.offset, static_cast<size_t>(p.shape.numel()));
    const size_t at = out.size();
    out.resize(at + v.size());
    std::memcpy(out.data() + at, v.data(), v.size_bytes());
  }
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

template <typename T>
T field(const std::string& bytes, size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

template <typename T>
void set_field(std::string& bytes, size_t at, T v) {
  std::memcpy(bytes.data() + at, &v, sizeof v);
}

std::string_view data_of(const std::string& bytes) {
  return std::string_view(bytes).substr(kHeaderBytes + field<uint64_t>(bytes, kTableBytesAt));
}

// The table checksum (FNV-1a 64 over the header's first 44 bytes and the table) recomputed, as after an
// edit of the version field.
void reseal_table(std::string& bytes) {
  const uint64_t table = field<uint64_t>(bytes, kTableBytesAt);
  const std::string_view b(bytes);
  set_field(bytes, kTableSumAt, fnv1a(fnv1a(b.substr(0, kTableSumAt)), b.substr(kHeaderBytes, table)));
}

class CheckpointFormats : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sinklab_checkpoint_formats_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary | std::ios::trunc) << bytes;
    return dir_ / name;
  }
  // The CheckpointError's message, or "" when a resume from `p` succeeded.
  static std::string resume_error(const fs::path& p) {
    ParameterStore s = small_store();
    try {
      read_checkpoint_file(p, kFormat3Hashes, CheckpointUse::resume, s);
      return "";
    } catch (const CheckpointError& e) {
      return e.what();
    }
  }
  // A format-4 file of the fixture's parameters, as write_checkpoint_file writes it.
  std::string format4_bytes() {
    ParameterStore s = filled_small_store();
    write_checkpoint_file(dir_ / "c4.bin", kFormat3Hashes, s, "format 4 state");
    return slurp(dir_ / "c4.bin");
  }

  fs::path dir_;
};

TEST_F(CheckpointFormats, Format4IsWrittenWithAnXxh3DataChecksumAndRoundTrips) {
  const std::string bytes = format4_bytes();
  EXPECT_EQ(field<uint32_t>(bytes, kVersionAt), 4u);
  const std::string_view data = data_of(bytes);
  EXPECT_EQ(field<uint64_t>(bytes, kDataSumAt), XXH3_64bits(data.data(), data.size()));

  ParameterStore saved = filled_small_store(), resumed = small_store();
  EXPECT_EQ(read_checkpoint_file(dir_ / "c4.bin", kFormat3Hashes, CheckpointUse::resume, resumed), "format 4 state");
  ASSERT_EQ(resumed.moment_count(), 2);
  EXPECT_EQ(bits_of(resumed, resumed.values()), bits_of(saved, saved.values()));
  for (int m = 0; m < 2; ++m)
    EXPECT_EQ(bits_of(resumed, resumed.moment(m)), bits_of(saved, saved.moment(m))) << "moment " << m;
  EXPECT_EQ(checkpoint_damage(dir_ / "c4.bin"), "");
  EXPECT_EQ(read_checkpoint_training_state(dir_ / "c4.bin"), "format 4 state");
}

TEST_F(CheckpointFormats, TheCommittedFormat3FileStillReadsResumesAndIsRewrittenAsFormat4) {
  const std::string bytes = slurp(kFormat3File);
  ASSERT_EQ(field<uint32_t>(bytes, kVersionAt), 3u) << kFormat3File;
  EXPECT_EQ(checkpoint_damage(kFormat3File), "");
  EXPECT_EQ(read_checkpoint_training_state(kFormat3File), "format 3 state");

  ParameterStore expected = filled_small_store(), resumed = small_store();
  EXPECT_EQ(read_checkpoint_file(kFormat3File, kFormat3Hashes, CheckpointUse::resume, resumed), "format 3 state");
  ASSERT_EQ(resumed.moment_count(), 2);
  EXPECT_EQ(bits_of(resumed, resumed.values()), bits_of(expected, expected.values()));
  for (int m = 0; m < 2; ++m)
    EXPECT_EQ(bits_of(resumed, resumed.moment(m)), bits_of(expected, expected.moment(m))) << "moment " << m;

  // Saved again, the same content becomes format 4: only the version and the data checksum differ.
  write_checkpoint_file(dir_ / "again.bin", kFormat3Hashes, resumed, "format 3 state");
  std::string again = slurp(dir_ / "again.bin");
  EXPECT_EQ(field<uint32_t>(again, kVersionAt), 4u);
  set_field(again, kVersionAt, uint32_t{3});
  reseal_table(again);
  set_field(again, kDataSumAt, fnv1a(data_of(again)));
  EXPECT_TRUE(again == bytes);

  // A damaged data byte of a format-3 file is still found by its FNV-1a checksum.
  std::string flipped = bytes;
  flipped[bytes.size() - 3] ^= 0x01;
  EXPECT_NE(resume_error(write("flipped3.bin", flipped)).find("checksum mismatch (corrupt file)"), std::string::npos);
}

TEST_F(CheckpointFormats, AFlippedDataByteOfAFormat4FileIsNamedAsAChecksumMismatch) {
  const std::string bytes = format4_bytes();
  ASSERT_EQ(field<uint32_t>(bytes, kVersionAt), 4u);
  const size_t data_start = bytes.size() - data_of(bytes).size();
  for (const size_t at : {data_start, data_start + 17, bytes.size() - 1}) {
    std::string flipped = bytes;
    flipped[at] ^= 0x40;
    const fs::path p = write("flipped.bin", flipped);
    const std::string expected = "checkpoint " + p.string() + ": checksum mismatch (corrupt file)";
    EXPECT_NE(resume_error(p).find(expected), std::string::npos) << "byte " << at << ": " << resume_error(p);
    EXPECT_NE(checkpoint_damage(p).find(expected), std::string::npos) << "byte " << at;
  }
}

// The data checksum follows the version field: a format-4 file carrying format 3's FNV-1a checksum, and a
// format-4 file relabelled as format 3 (table checksum resealed), are both refused.
TEST_F(CheckpointFormats, AFormat4FileWithFormat3sChecksumIsRefused) {
  const std::string bytes = format4_bytes();
  ASSERT_EQ(field<uint32_t>(bytes, kVersionAt), 4u);
  std::string fnv_sum = bytes;
  set_field(fnv_sum, kDataSumAt, fnv1a(data_of(bytes)));
  const fs::path p = write("fnv.bin", fnv_sum);
  EXPECT_NE(resume_error(p).find("checkpoint " + p.string() + ": checksum mismatch (corrupt file)"), std::string::npos)
      << resume_error(p);
  EXPECT_NE(checkpoint_damage(p).find("checksum mismatch (corrupt file)"), std::string::npos);

  std::string relabelled = bytes;
  set_field(relabelled, kVersionAt, uint32_t{3});
  reseal_table(relabelled);
  const fs::path q = write("relabelled.bin", relabelled);
  EXPECT_NE(resume_error(q).find("checksum mismatch (corrupt file)"), std::string::npos) << resume_error(q);
}

TEST_F(CheckpointFormats, AnUnknownFormatNamesBothFormatsRead) {
  std::string bytes = format4_bytes();
  for (const uint32_t format : {0u, 5u, 9u}) {
    set_field(bytes, kVersionAt, format);
    const std::string expected = "format " + std::to_string(format) + ", this build reads format 3 or 4";
    EXPECT_NE(resume_error(write("v.bin", bytes)).find(expected), std::string::npos) << format;
  }
  set_field(bytes, kVersionAt, uint32_t{2});
  EXPECT_NE(resume_error(write("v2.bin", bytes))
                .find("format 2, written by an older sinklab; rerun the training (this build reads format 3 or 4)"),
            std::string::npos);
}

}  // namespace
}  // namespace sinklab
