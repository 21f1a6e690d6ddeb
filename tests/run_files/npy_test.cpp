#include "run_files/npy.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::fresh_test_dir;
using sinklab::testing::read_text;
using sinklab::testing::write_text;

TEST(Npy, RoundTripKeepsShapeAndBits) {
  const auto dir = fresh_test_dir();
  const std::vector<float> data = {0.0f, 1.0f, -2.5f, 1e-30f, 3.14159f, 7.0f};
  write_npy(dir / "a.npy", data, {2, 3});
  const NpyArray a = read_npy(dir / "a.npy");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data, data);

  write_npy(dir / "v.npy", data, {6});
  EXPECT_EQ(read_npy(dir / "v.npy").shape, (std::vector<int64_t>{6}));
  write_npy(dir / "s.npy", std::vector<float>{5.0f}, {});
  const NpyArray s = read_npy(dir / "s.npy");
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.data, std::vector<float>{5.0f});
}

TEST(Npy, HeaderIsNumpyFormatOneAlignedTo64) {
  const auto dir = fresh_test_dir();
  write_npy(dir / "a.npy", std::vector<float>(6, 1.0f), {2, 3});
  const std::string bytes = read_text(dir / "a.npy");
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  EXPECT_EQ(bytes.size(), 10 + header_len + 6 * sizeof(float));
  const std::string header = bytes.substr(10, header_len);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u) << header;
  EXPECT_EQ(header.back(), '\n');
}

TEST(Npy, BadFilesAreNamedWithTheReason) {
  const auto dir = fresh_test_dir();
  write_text(dir / "text.npy", "hello, not numpy");
  try {
    read_npy(dir / "text.npy");
    FAIL();
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find("text.npy"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("bad magic"), std::string::npos);
  }
  // A float64 file as numpy writes it: only '<f4' is accepted.
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  write_text(dir / "f8.npy", std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header +
                                 std::string(8, '\0'));
  try {
    read_npy(dir / "f8.npy");
    FAIL();
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find("'<f8'"), std::string::npos) << e.what();
  }
  // Truncated data.
  write_npy(dir / "t.npy", std::vector<float>(16, 0.5f), {4, 4});
  const std::string full = read_text(dir / "t.npy");
  write_text(dir / "t.npy", full.substr(0, full.size() - 4));
  EXPECT_THROW(read_npy(dir / "t.npy"), NpyError);
  EXPECT_THROW(read_npy(dir / "missing.npy"), NpyError);
  EXPECT_THROW(write_npy(dir / "w.npy", std::vector<float>(5, 0.0f), {2, 3}), NpyError);
}

}  // namespace
}  // namespace sinklab
