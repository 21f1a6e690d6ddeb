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

// Default upper bound on one entry's uncompressed size, so a forged size cannot exhaust memory.
inline constexpr uint64_t kMaxNpzEntryBytes = uint64_t{1} << 32;

// The arrays of an archive held in memory; `where` names it in errors. Throws NpzError saying which
// entry and what is wrong (not a zip, truncated, unknown dtype, data shorter than the shape, an entry
// above max_entry_bytes uncompressed, ...).
NpzArrays decode_npz(std::string_view bytes, const std::string& where, uint64_t max_entry_bytes = kMaxNpzEntryBytes);
// The same for a file; errors name the file.
NpzArrays read_npz(const std::filesystem::path& path);

}  // namespace sinklab
