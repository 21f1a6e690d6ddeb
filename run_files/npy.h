#pragma once
// Minimal .npy files (NumPy format 1.0, C order; float32, and any fixed-size type through encode_npy_typed), so saved
// attention maps open with numpy.load, and integer arrays read back (token ids). Written by hand because no Debian C++
// package provides it. The readers accept format versions 1.0 to 3.0 but only little-endian data in C order.
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "run_files/run_summary.h"  // RunFileError: a bad file the user gave

namespace sinklab {

class NpyError : public RunFileError {
 public:
  using RunFileError::RunFileError;
};

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;  // row-major, product(shape) elements
};

// The bytes of a .npy file holding data (product(shape) floats, row-major); `where` names it in errors.
std::string encode_npy(std::span<const float> data, const std::vector<int64_t>& shape, const std::string& where);

// The same for any fixed-size element type: `descr` is NumPy's type string ("<i8", "<i4", "|u1", "<f4"),
// data holds `count` elements of `element_bytes` each, little-endian as this host stores them.
std::string encode_npy_typed(const std::string& descr, const void* data, size_t element_bytes, size_t count,
                             const std::vector<int64_t>& shape, const std::string& where);

// Writes data (product(shape) floats, row-major) to path, replacing the file.
// encode_npy_typed of a vector: descr "<f4", "<i4", "<i8", ... must match T.
template <typename T>
std::string encode_npy_vector(const std::string& descr, const std::vector<T>& values, const std::vector<int64_t>& shape,
                              const std::string& where) {
  return encode_npy_typed(descr, values.data(), sizeof(T), values.size(), shape, where);
}
// NumPy's '|S<width>': each string NUL-padded to the longest (at least 1 byte). A string ending in NUL
// bytes reads back without them, as in NumPy.
std::string encode_npy_byte_strings(const std::vector<std::string>& strings, const std::string& where);
void write_npy(const std::filesystem::path& path, std::span<const float> data, const std::vector<int64_t>& shape);

// Largest .npy file the readers take unless told otherwise (core/io/file_read.h also refuses data that
// would not fit in the memory left, and FIFOs or devices, by name).
inline constexpr uint64_t kMaxNpyFileBytes = uint64_t{4} << 30;

// Reads a file written by write_npy or numpy.save; errors name the file and what is wrong.
NpyArray read_npy(const std::filesystem::path& path, uint64_t max_bytes = kMaxNpyFileBytes);

// Integer arrays (token ids from numpy.save): dtypes '<i4', '<i8', '<i2', '<u2', '<u4', '|u1', '|i1',
// C order, any rank; values widened to int64. Same errors as read_npy, and a dtype outside the list.
struct NpyIntArray {
  std::vector<int64_t> shape;
  std::vector<int64_t> data;  // row-major, product(shape) elements
};
NpyIntArray read_npy_integers(const std::filesystem::path& path, uint64_t max_bytes = kMaxNpyFileBytes);

}  // namespace sinklab
