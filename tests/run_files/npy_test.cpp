#include "run_files/npy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
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

// An integer .npy as numpy.save writes it: descr, shape and raw little-endian values.
std::string integer_npy(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header + data;
}

template <class T>
std::string raw(std::initializer_list<T> values) {
  return std::string(reinterpret_cast<const char*>(std::data(values)), values.size() * sizeof(T));
}

std::string integer_error(const std::filesystem::path& path) {
  try {
    read_npy_integers(path);
  } catch (const NpyError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Npy, IntegerArraysOfEveryAcceptedDtypeWidenToInt64) {
  const auto dir = fresh_test_dir();
  write_text(dir / "i8.npy", integer_npy("<i8", "(2, 3)", raw<int64_t>({0, 50256, -1, int64_t{1} << 40, 7, 8})));
  const NpyIntArray a = read_npy_integers(dir / "i8.npy");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data, (std::vector<int64_t>{0, 50256, -1, int64_t{1} << 40, 7, 8}));
  write_text(dir / "i4.npy", integer_npy("<i4", "(3,)", raw<int32_t>({5, -7, 2147483647})));
  EXPECT_EQ(read_npy_integers(dir / "i4.npy").data, (std::vector<int64_t>{5, -7, 2147483647}));
  write_text(dir / "u2.npy", integer_npy("<u2", "(2,)", raw<uint16_t>({65535, 3})));
  EXPECT_EQ(read_npy_integers(dir / "u2.npy").data, (std::vector<int64_t>{65535, 3}));
  write_text(dir / "i2.npy", integer_npy("<i2", "(2,)", raw<int16_t>({-2, 300})));
  EXPECT_EQ(read_npy_integers(dir / "i2.npy").data, (std::vector<int64_t>{-2, 300}));
  write_text(dir / "u4.npy", integer_npy("<u4", "(1,)", raw<uint32_t>({4000000000u})));
  EXPECT_EQ(read_npy_integers(dir / "u4.npy").data, (std::vector<int64_t>{4000000000}));
  write_text(dir / "u1.npy", integer_npy("|u1", "(2,)", raw<uint8_t>({255, 1})));
  EXPECT_EQ(read_npy_integers(dir / "u1.npy").data, (std::vector<int64_t>{255, 1}));
  write_text(dir / "i1.npy", integer_npy("|i1", "(2,)", raw<int8_t>({-128, 1})));
  EXPECT_EQ(read_npy_integers(dir / "i1.npy").data, (std::vector<int64_t>{-128, 1}));
}

TEST(Npy, IntegerReaderNamesTheFileAndTheProblem) {
  const auto dir = fresh_test_dir();
  write_npy(dir / "f4.npy", std::vector<float>{1.0f}, {1});
  EXPECT_NE(integer_error(dir / "f4.npy").find("f4.npy: dtype '<f4' is not an integer type"), std::string::npos)
      << integer_error(dir / "f4.npy");
  write_text(dir / "big.npy", integer_npy(">i8", "(1,)", raw<int64_t>({1})));
  EXPECT_NE(integer_error(dir / "big.npy").find("'>i8'"), std::string::npos);
  write_text(dir / "short.npy", integer_npy("<i8", "(4,)", raw<int64_t>({1, 2, 3})));
  EXPECT_NE(integer_error(dir / "short.npy").find("data truncated"), std::string::npos)
      << integer_error(dir / "short.npy");
  write_text(dir / "long.npy", integer_npy("<i4", "(1,)", raw<int32_t>({1, 2})));
  EXPECT_NE(integer_error(dir / "long.npy").find("trailing bytes"), std::string::npos);
}

}  // namespace
}  // namespace sinklab
