// Malformed .npy files found by fuzzing (tests/fuzz, docs/fuzzing.md): sizes in the header are
// untrusted, so each must give an NpyError naming the file before anything is allocated from them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "run_files/npy.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::fresh_test_dir;
using sinklab::testing::write_text;

std::string npy_error(const std::filesystem::path& path) {
  try {
    read_npy(path);
  } catch (const NpyError& e) {
    return e.what();
  }
  return "no error";
}

// Format 1.0 file with this header dict and `data_bytes` zero bytes of data.
std::string npy_v1(const std::string& dict, size_t data_bytes) {
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(dict.size() & 0xff) +
         static_cast<char>(dict.size() >> 8) + dict + std::string(data_bytes, '\0');
}

// A format 2.0 header length is 32 bits: 1.4 GB was allocated before the read found the file short.
TEST(NpyMalformed, HeaderLengthBeyondTheFileIsRefusedBeforeAllocating) {
  const auto dir = fresh_test_dir();
  write_text(dir / "big_header.npy", std::string("\x93NUMPY\x02\x00\x74\x00\x00\x53", 12) + "{'descr': '<f4'");
  const std::string error = npy_error(dir / "big_header.npy");
  EXPECT_NE(error.find("big_header.npy: truncated header: it announces 1392509044 bytes"), std::string::npos)
      << error;
}

// 2^62 * 4 elements overflowed int64 (undefined behaviour) and wrapped to an empty array.
TEST(NpyMalformed, ShapeWhoseElementCountOverflowsIsTruncatedData) {
  const auto dir = fresh_test_dir();
  write_text(dir / "overflow.npy",
             npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }\n", 0));
  const std::string error = npy_error(dir / "overflow.npy");
  EXPECT_NE(error.find("overflow.npy: data truncated"), std::string::npos) << error;
}

// A billion floats were allocated (4 GB) for a file holding eight bytes of data.
TEST(NpyMalformed, ShapeLargerThanTheDataIsRefusedBeforeAllocating) {
  const auto dir = fresh_test_dir();
  write_text(dir / "huge.npy", npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000,), }\n", 8));
  const std::string error = npy_error(dir / "huge.npy");
  EXPECT_NE(error.find("huge.npy: data truncated: the shape needs more than the 2 float32 values"),
            std::string::npos)
      << error;
}

// Zero-sized dimensions stay legal whatever the other dimensions say.
TEST(NpyMalformed, ZeroSizedShapeReadsAsEmpty) {
  const auto dir = fresh_test_dir();
  write_text(dir / "empty.npy",
             npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775807, 0), }\n", 0));
  const NpyArray a = read_npy(dir / "empty.npy");
  EXPECT_EQ(a.shape.size(), 2u);
  EXPECT_TRUE(a.data.empty());
}

}  // namespace
}  // namespace sinklab
