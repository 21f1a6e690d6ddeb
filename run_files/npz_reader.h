#pragma once
// Reading NumPy .npz archives (numpy.savez or numpy.savez_compressed): every "<name>.npy" entry as an
// array of numbers. Other entries (text, pickles) are skipped. Accepted dtypes: little-endian floats
// '<f2', '<f4', '<f8' (held as float) and integers '|u1', '|i1', '<u2', '<i2', '<u4', '<i4', '<i8'
// (held as int64), NUL-padded byte strings '|S<width>' (held as strings, padding dropped as NumPy
// does), format versions 1.0 to 3.0, C order. The writer is run_files/npz_file.h.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "run_files/npz_file.h"  // NpzError

namespace sinklab {

struct NpzArray {
  std::string dtype;               // as the header gives it: "<f4", "|u1", ...; "|S" for byte strings of any width
  std::vector<int64_t> shape;      // [] is a scalar
  std::vector<float> floats;       // float dtypes: product(shape) values, row-major
  std::vector<int64_t> integers;   // integer dtypes: product(shape) values, row-major
  std::vector<std::string> strings;  // byte strings: product(shape) values, row-major
  bool is_float() const { return dtype.size() > 1 && dtype[1] == 'f'; }
  bool is_strings() const { return dtype == "|S"; }
  int64_t element_count() const;
};

// Entry name without ".npy" -> array.
using NpzArrays = std::map<std::string, NpzArray>;

// Default upper bound on the memory one archive's arrays take (and on the file's size). Each entry's
// uncompressed size, as the zip directory declares it, and its .npy shape are checked against what is
// left of it before the entry is inflated, and no entry is inflated past its declared size: a forged
// size or a zip bomb is refused by name, never met with std::bad_alloc.
inline constexpr uint64_t kMaxNpzBytes = uint64_t{16} << 30;

// The arrays of an archive held in memory; `where` names it in errors. Throws NpzError saying which
// entry and what is wrong (not a zip, truncated, unknown dtype, data shorter than the shape, entries
// above max_bytes, ...).
NpzArrays decode_npz(std::string_view bytes, const std::string& where, uint64_t max_bytes = kMaxNpzBytes);
// The same for a file, opened through core/io/file_read.h (a FIFO or device is refused) and read by
// libzip from the descriptor; max_bytes is lowered to the memory the machine has left. Errors name the file.
NpzArrays read_npz(const std::filesystem::path& path, uint64_t max_bytes = kMaxNpzBytes);

}  // namespace sinklab
