// .npz archives as numpy.savez writes them (run_files/npz_reader.h) and half floats
// (run_files/half_float.h).
#include "run_files/npz_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <cstring>
#include <string>
#include <vector>

#include "run_files/half_float.h"
#include "run_files/npz_file.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

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

// A zip of one entry compressed with deflate, as numpy.savez_compressed writes it (encode_npz stores).
std::string deflated_archive(const std::string& name, const std::string& content) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* memory = zip_source_buffer_create(nullptr, 0, 0, &error);
  zip_source_keep(memory);
  zip_t* z = zip_open_from_source(memory, ZIP_TRUNCATE, &error);
  const zip_int64_t i = zip_file_add(z, name.c_str(), zip_source_buffer(z, content.data(), content.size(), 0), 0);
  EXPECT_GE(i, 0);
  EXPECT_EQ(zip_set_file_compression(z, static_cast<zip_uint64_t>(i), ZIP_CM_DEFLATE, 1), 0);
  EXPECT_EQ(zip_close(z), 0);
  std::string bytes;
  EXPECT_EQ(zip_source_open(memory), 0);
  char chunk[1 << 16];
  for (zip_int64_t n; (n = zip_source_read(memory, chunk, sizeof chunk)) > 0;)
    bytes.append(chunk, static_cast<size_t>(n));
  zip_source_close(memory);
  zip_source_free(memory);
  return bytes;
}

// Writes `size` as the uncompressed size of every entry, in the local header and the central directory
// (ZIP_CHECKCONS compares them): a size that lies.
std::string with_declared_size(std::string zip, uint32_t size) {
  for (const auto& [signature, offset] : {std::pair<std::string, size_t>{"PK\x03\x04", 22}, {"PK\x01\x02", 24}})
    for (size_t at = zip.find(signature); at != std::string::npos; at = zip.find(signature, at + 4))
      std::memcpy(zip.data() + at + offset, &size, sizeof size);
  return zip;
}

std::string npz_error(const std::string& bytes, uint64_t max_bytes) {
  try {
    decode_npz(bytes, "bomb.npz", max_bytes);
  } catch (const NpzError& e) {
    return e.what();
  }
  return "no error";
}

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
  const NpzArrays arrays =
      decode_npz(archive({{"h.npy", npy<uint16_t>("<f2", "(5,)", {0x3555, 0x0001, 0x7c00, 0xc000, 0x8000})}}), "h.npz");
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
  EXPECT_NE(message(archive({{"a.npy", npy<float>(">f4", "(1,)", {1})}})).find("unsupported dtype '>f4'"),
            std::string::npos);
  EXPECT_NE(message(archive({{"a.npy", npy<float>("<f4", "(1,)", {1})}}).substr(0, 40) + std::string(200, 'x'))
                .find("where.npz"),
            std::string::npos);
}

TEST(NpzReader, CapsAnEntrysSize) {
  const std::string bytes = archive({{"a.npy", npy<float>("<f4", "(1000,)", std::vector<float>(1000))}});
  EXPECT_THROW(decode_npz(bytes, "a.npz", 1000), NpzError);
  EXPECT_NO_THROW(decode_npz(bytes, "a.npz", 1 << 20));
}

// 64 MiB of zeros deflate to some 64 KB: the entry's declared size is refused against the limit before
// a byte of it is inflated.
TEST(NpzReader, AZipBombIsRefusedByItsDeclaredSizeBeforeInflating) {
  const std::string zeros = npy<float>("<f4", "(16777216,)", std::vector<float>(16777216));
  const std::string bomb = deflated_archive("mean.npy", zeros);
  EXPECT_LT(bomb.size(), zeros.size() / 100);
  const std::string message = npz_error(bomb, 16 << 20);
  EXPECT_NE(message.find("npz file bomb.npz entry mean.npy: declares " + std::to_string(zeros.size()) +
                         " bytes uncompressed, more than the 16777216 left"), std::string::npos) << message;
  EXPECT_EQ(decode_npz(bomb, "bomb.npz", 1 << 30).at("mean").floats.size(), 16777216u);  // within the limit: read
}

// A directory that declares fewer bytes than the entry inflates to: inflating stops at the declared
// size; one that declares more than the shape needs is refused before inflating.
TEST(NpzReader, ADeclaredSizeThatLiesIsCaughtAtIt) {
  const std::string one = npy<float>("<f4", "(1,)", {1.0f});
  std::string lying = one + std::string(1 << 20, '\0');  // a megabyte more than the shape
  const std::string small = with_declared_size(deflated_archive("a.npy", lying), static_cast<uint32_t>(one.size()));
  const std::string message = npz_error(small, 1 << 30);
  EXPECT_NE(message.find("npz file bomb.npz entry a.npy: inflates to more bytes than its directory declares"),
            std::string::npos) << message;
  const std::string big = with_declared_size(deflated_archive("a.npy", one), 0xfffffff0u);
  const std::string data_bytes = std::to_string(0xfffffff0u - (one.size() - sizeof(float)));  // all but the header
  const std::string big_error = npz_error(big, uint64_t{16} << 30);
  EXPECT_NE(big_error.find("entry a.npy: data holds " + data_bytes + " bytes, the shape needs 4"), std::string::npos)
      << big_error;
}

// The limit holds for the archive's arrays together (and counts what decoding widens: one byte of
// '|u1' becomes an int64), not only for each entry.
TEST(NpzReader, TheLimitHoldsForAllEntriesTogether) {
  const std::string bytes = archive({{"a.npy", npy<float>("<f4", "(100000,)", std::vector<float>(100000))},
                                     {"b.npy", npy<float>("<f4", "(100000,)", std::vector<float>(100000))}});
  EXPECT_NO_THROW(decode_npz(bytes, "two.npz", 2 << 20));
  EXPECT_NE(npz_error(bytes, 1 << 20).find("entry b.npy: its 100000 values need"), std::string::npos)
      << npz_error(bytes, 1 << 20);
  const std::string wide = archive({{"u.npy", npy<uint8_t>("|u1", "(100000,)", std::vector<uint8_t>(100000))}});
  EXPECT_NE(npz_error(wide, 500000).find("its 100000 values need 900000 bytes"), std::string::npos)
      << npz_error(wide, 500000);
}

// read_npz opens through core/io/file_read.h: a FIFO is refused without waiting for a writer, a device
// is not read, a sparse 12 GB file is refused without being read into memory.
TEST(NpzReader, AFileThatIsNotARegularArchiveIsRefusedAtOnce) {
  const fs::path dir = fs::temp_directory_path() / ("sinklab_npz_reader_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto message = [](const fs::path& p) {
    try {
      read_npz(p);
    } catch (const NpzError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  ASSERT_EQ(::mkfifo((dir / "fifo.npz").c_str(), 0600), 0);
  auto reading = std::async(std::launch::async, [&] { return message(dir / "fifo.npz"); });
  ASSERT_EQ(reading.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "blocked on the FIFO";
  EXPECT_EQ(reading.get(), "npz file " + (dir / "fifo.npz").string() + ": is not a regular file");
  EXPECT_EQ(message("/dev/zero"), "npz file /dev/zero: is not a regular file");
  std::ofstream(dir / "sparse.npz") << "PK";
  fs::resize_file(dir / "sparse.npz", uint64_t{12} << 30);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_NE(message(dir / "sparse.npz").find("npz file " + (dir / "sparse.npz").string() + ": "), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "the file was read";
  const std::string good = archive(snapshot_entries());
  std::ofstream(dir / "good.npz", std::ios::binary) << good;
  EXPECT_EQ(read_npz(dir / "good.npz").size(), 8u);
  fs::remove_all(dir);
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
  EXPECT_NE(
      message(archive({{"s.npy", npy<char>("|S0", "(1,)", std::vector<char>{})}})).find("unsupported dtype '|S0'"),
      std::string::npos);
  EXPECT_NE(
      message(archive({{"s.npy", npy<char>("|Sx", "(1,)", std::vector<char>{'a'})}})).find("unsupported dtype '|Sx'"),
      std::string::npos);
  EXPECT_NE(
      message(archive({{"s.npy", npy<char>("|S4", "(2,)", bytes)}})).find("data holds 9 bytes, the shape needs 8"),
      std::string::npos);
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
