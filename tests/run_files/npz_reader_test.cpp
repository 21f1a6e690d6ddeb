// .npz archives as numpy.savez writes them (run_files/npz_reader.h) and half floats
// (run_files/half_float.h).
#include "run_files/npz_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "run_files/half_float.h"
#include "run_files/npz_file.h"

namespace sinklab {
namespace {

// A .npy entry with any dtype: the writer (run_files/npy.h) only makes float32.
template <typename T>
std::string npy(const std::string& descr, const std::string& shape, const std::vector<T>& values) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  return bytes;
}

// Entries of every kind numpy.savez writes for a snapshot-like archive.
NpzTextEntries snapshot_entries() {
  std::vector<float> mean(2 * 1 * 2 * 2 * 3);
  for (size_t i = 0; i < mean.size(); ++i) mean[i] = static_cast<float>(i) / 16.0f;
  return {{"steps.npy", npy<int64_t>("<i8", "(2,)", {10, 20})},
          {"mean.npy", npy<float>("<f4", "(2, 1, 2, 2, 3)", mean)},
          {"example.npy", npy<uint16_t>("<f2", "(2, 1, 2, 2, 3)", std::vector<uint16_t>(24, 0x3c00))},  // 1.0
          {"rows.npy", npy<int32_t>("<i4", "(2,)", {0, 3})},
          {"cols.npy", npy<int32_t>("<i4", "(3,)", {0, 1, 3})},
          {"roles.npy", npy<uint8_t>("|u1", "(4,)", {1, 2, 2, 4})},
          {"tokens.npy", npy<int32_t>("<i4", "(4,)", {0, 7, 8, 9})},
          {"seq_len.npy", npy<int64_t>("<i8", "()", {4})}};
}

std::string archive(const NpzTextEntries& entries) { return encode_npz({}, entries, "test.npz"); }

TEST(NpzReader, ReadsEveryDtypeAsNumPyWroteIt) {
  const NpzArrays arrays = decode_npz(archive(snapshot_entries()), "test.npz");
  ASSERT_EQ(arrays.size(), 8u);
  EXPECT_EQ(arrays.at("steps").integers, (std::vector<int64_t>{10, 20}));
  EXPECT_EQ(arrays.at("mean").shape, (std::vector<int64_t>{2, 1, 2, 2, 3}));
  EXPECT_FLOAT_EQ(arrays.at("mean").floats[5], 5.0f / 16.0f);
  EXPECT_EQ(arrays.at("example").floats[0], 1.0f);
  EXPECT_EQ(arrays.at("roles").integers, (std::vector<int64_t>{1, 2, 2, 4}));
  EXPECT_TRUE(arrays.at("seq_len").shape.empty());
  EXPECT_EQ(arrays.at("seq_len").integers, (std::vector<int64_t>{4}));
}

TEST(NpzReader, HalfFloatsKeepSubnormalsInfinitiesAndSigns) {
  const NpzArrays arrays = decode_npz(archive({{"h.npy", npy<uint16_t>("<f2", "(5,)", {0x3555, 0x0001, 0x7c00, 0xc000, 0x8000})}}), "h.npz");
  const std::vector<float>& h = arrays.at("h").floats;
  EXPECT_FLOAT_EQ(h[0], 0.333251953125f);
  EXPECT_FLOAT_EQ(h[1], 5.9604645e-8f);  // 2^-24, the smallest subnormal
  EXPECT_TRUE(std::isinf(h[2]) && h[2] > 0);
  EXPECT_EQ(h[3], -2.0f);
  EXPECT_TRUE(h[4] == 0.0f && std::signbit(h[4]));
}

TEST(NpzReader, BrokenArchivesAreOneClearError) {
  const std::string good = archive(snapshot_entries());
  const auto message = [](const std::string& bytes) {
    try {
      decode_npz(bytes, "where.npz");
    } catch (const NpzError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(good.substr(0, good.size() / 2)).find("where.npz: not a readable zip archive"), std::string::npos);
  EXPECT_NE(message("").find("where.npz: empty file"), std::string::npos);
  const std::string short_data = archive({{"a.npy", npy<float>("<f4", "(3, 2)", {1, 2, 3})}});
  EXPECT_NE(message(short_data).find("entry a.npy: data holds 12 bytes, the shape needs 24"), std::string::npos);
  const std::string long_data = archive({{"a.npy", npy<float>("<f4", "(1,)", {1, 2})}});  // more data than the shape
  EXPECT_NE(message(long_data).find("entry a.npy: data holds 8 bytes, the shape needs 4"), std::string::npos);
  const std::string huge_shape = archive({{"a.npy", npy<float>("<f4", "(4611686018427387904, 4)", {1})}});
  EXPECT_NE(message(huge_shape).find("the shape needs more"), std::string::npos);
  EXPECT_NE(message(archive({{"a.npy", npy<float>(">f4", "(1,)", {1})}})).find("unsupported dtype '>f4'"), std::string::npos);
  EXPECT_NE(message(archive({{"a.npy", npy<float>("<f4", "(1,)", {1})}}).substr(0, 40) + std::string(200, 'x')).find("where.npz"),
            std::string::npos);
}

TEST(NpzReader, CapsAnEntrysSize) {
  const std::string bytes = archive({{"a.npy", npy<float>("<f4", "(1000,)", std::vector<float>(1000))}});
  EXPECT_THROW(decode_npz(bytes, "a.npz", 1000), NpzError);
  EXPECT_NO_THROW(decode_npz(bytes, "a.npz", 1 << 20));
}

TEST(NpzReader, ReadsByteStringsAsNumPyDoes) {
  // '|S3': NUL-padded to the width; NumPy gives b"a", b"", b"a\nc" (trailing NULs dropped, inner bytes kept).
  const std::string data("a\0\0\0\0\0a\nc", 9);
  const std::vector<char> bytes(data.begin(), data.end());
  const NpzArrays arrays = decode_npz(archive({{"s.npy", npy<char>("|S3", "(3,)", bytes)}}), "s.npz");
  EXPECT_TRUE(arrays.at("s").is_strings());
  EXPECT_FALSE(arrays.at("s").is_float());
  EXPECT_EQ(arrays.at("s").strings, (std::vector<std::string>{"a", "", "a\nc"}));
  const auto message = [](const std::string& bytes) {
    try {
      decode_npz(bytes, "s.npz");
    } catch (const NpzError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(archive({{"s.npy", npy<char>("|S0", "(1,)", std::vector<char>{})}})).find("unsupported dtype '|S0'"), std::string::npos);
  EXPECT_NE(message(archive({{"s.npy", npy<char>("|Sx", "(1,)", std::vector<char>{'a'})}})).find("unsupported dtype '|Sx'"), std::string::npos);
  EXPECT_NE(message(archive({{"s.npy", npy<char>("|S4", "(2,)", bytes)}})).find("data holds 9 bytes, the shape needs 8"), std::string::npos);
}

TEST(HalfFloat, EveryHalfRoundTripsAndOtherFloatsAreRefused) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = half_to_float(static_cast<uint16_t>(h));
    const std::optional<uint16_t> back = exact_half(f);
    ASSERT_TRUE(back.has_value()) << h;
    if (f == f) EXPECT_EQ(*back, h) << h;  // NaN payloads may differ; NaN stays NaN
    else EXPECT_TRUE(std::isnan(half_to_float(*back))) << h;
  }
  EXPECT_FALSE(exact_half(0.1f));      // needs more mantissa bits
  EXPECT_FALSE(exact_half(70000.0f));  // above the largest half
  EXPECT_FALSE(exact_half(1e-8f));     // below the smallest subnormal
}

}  // namespace
}  // namespace sinklab
