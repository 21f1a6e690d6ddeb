#include "run_files/npy.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>
#include <string>

#include "core/io/file_read.h"
#include "core/io/file_write.h"
#include "run_files/npy_header.h"

namespace sinklab {
namespace {

static_assert(std::endian::native == std::endian::little, "npy: '<f4' data is written as raw host floats");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw NpyError("npy file " + where + ": " + why);
}
[[noreturn]] void fail(const std::filesystem::path& path, const std::string& why) { fail(path.string(), why); }

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace

std::string encode_npy(std::span<const float> data, const std::vector<int64_t>& shape, const std::string& where) {
  return encode_npy_typed("<f4", data.data(), sizeof(float), data.size(), shape, where);
}

std::string encode_npy_typed(const std::string& descr, const void* data, size_t element_bytes, size_t count,
                             const std::vector<int64_t>& shape, const std::string& where) {
  for (int64_t d : shape)
    if (d < 0) fail(where, "negative dimension in shape");
  if (element_count(shape) != static_cast<int64_t>(count))
    fail(where, "shape holds " + std::to_string(element_count(shape)) + " elements but " +
                    std::to_string(count) + " were given");

  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) dict += ", ";
    dict += std::to_string(shape[i]);
  }
  if (shape.size() == 1) dict += ',';  // a Python 1-tuple: "(5,)"
  dict += "), }";
  // Pad with spaces and end with '\n' so the data starts at a multiple of 64 bytes (NumPy's rule).
  const size_t prefix = kMagicLen + 2 + 2;
  size_t total = prefix + dict.size() + 1;
  total = (total + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  if (dict.size() > 65535) fail(where, "header too long for format 1.0");

  const uint16_t len = static_cast<uint16_t>(dict.size());
  std::string bytes(kMagic, kMagicLen);
  bytes += {'\x01', '\x00', static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};  // version 1.0, header length
  bytes += dict;
  bytes.append(static_cast<const char*>(data), count * element_bytes);
  return bytes;
}

void write_npy(const std::filesystem::path& path, std::span<const float> data, const std::vector<int64_t>& shape) {
  write_file_atomically(path, encode_npy(data, shape, path.string()));
}

namespace {

// What the header says, and where the data starts.
struct NpyHeader {
  std::string descr;  // as written, quotes included: "'<f4'"
  std::vector<int64_t> shape;
  uint64_t data_start = 0;
  uint64_t data_bytes = 0;  // bytes after the header
};

// A little-endian unsigned number of `bytes` bytes at `at` of the file.
uint64_t read_number(const ReadableFile& file, uint64_t at, uint64_t bytes) {
  const std::string raw = file.read(at, bytes);
  uint64_t n = 0;
  for (uint64_t i = 0; i < bytes; ++i) n |= static_cast<uint64_t>(static_cast<unsigned char>(raw[i])) << (8 * i);
  return n;
}

NpyHeader read_header(const ReadableFile& file, const std::filesystem::path& path) {
  // Sizes in the header are checked against the file before anything is allocated from them.
  const uint64_t file_size = file.size();
  if (file_size < kMagicLen + 2 || file.read(0, kMagicLen) != std::string_view(kMagic, kMagicLen))
    fail(path, "not a .npy file (bad magic)");
  const auto version = static_cast<unsigned char>(file.read(kMagicLen, 1)[0]);
  const uint64_t length_bytes = version == 1 ? 2 : version == 2 || version == 3 ? 4 : 0;
  if (length_bytes == 0)
    fail(path, "unsupported format version " + std::to_string(version) + "." +
                   std::to_string(static_cast<unsigned char>(file.read(kMagicLen + 1, 1)[0])));
  const uint64_t length_at = kMagicLen + 2;
  if (file_size < length_at + length_bytes) fail(path, "truncated header");
  const uint64_t header_len = read_number(file, length_at, length_bytes);
  const uint64_t header_at = length_at + length_bytes;
  if (header_len > file_size - header_at)
    fail(path, "truncated header: it announces " + std::to_string(header_len) + " bytes, the file has " +
                   std::to_string(file_size - header_at) + " left");
  const std::string header = file.read(header_at, header_len);

  NpyHeader h;
  NpyHeaderDict dict;
  try {
    dict = parse_npy_header_dict(header);
  } catch (const NpyHeaderProblem& e) {
    fail(path, e.what());
  }
  if (dict.fortran_order) fail(path, "Fortran-ordered arrays are not supported");
  h.descr = dict.descr;
  h.shape = dict.shape;
  h.data_start = header_at + header_len;
  h.data_bytes = file_size - h.data_start;
  return h;
}

// The file's reader refusals as NpyError (they already name the file).
template <typename F>
auto npy_errors(F&& f) {
  try {
    return f();
  } catch (const FileReadError& e) {
    throw NpyError(std::string("npy ") + e.what());
  }
}

// product(shape) elements of `element_bytes` each, or an error when the file holds fewer (the product
// of untrusted dimensions can overflow; anything above the elements left is truncated data).
int64_t checked_count(const std::vector<int64_t>& shape, uint64_t data_bytes, uint64_t element_bytes,
                      const char* type, const std::filesystem::path& path) {
  const uint64_t left = data_bytes / element_bytes;
  int64_t n = 1;
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  for (int64_t d : shape) {
    if (static_cast<uint64_t>(n) > left / static_cast<uint64_t>(d))
      fail(path, "data truncated: the shape needs more than the " + std::to_string(left) + " " + type +
                     " values the file holds");
    n *= d;
  }
  return n;
}

}  // namespace

NpyArray read_npy(const std::filesystem::path& path, uint64_t max_bytes) {
  return npy_errors([&] {
    const ReadableFile file(path, "file", max_bytes);
    NpyHeader h = read_header(file, path);
    if (h.descr != "'<f4'") fail(path, "dtype " + h.descr + " is not supported (only '<f4', little-endian float32)");
    NpyArray array;
    array.shape = std::move(h.shape);
    const int64_t n = checked_count(array.shape, h.data_bytes, sizeof(float), "float32", path);
    if (static_cast<uint64_t>(n) * sizeof(float) != h.data_bytes) fail(path, "trailing bytes after the data");
    file.check_memory_for(h.data_bytes, "its data");
    array.data.resize(static_cast<size_t>(n));
    file.read_into(h.data_start, h.data_bytes, reinterpret_cast<char*>(array.data.data()));
    return array;
  });
}

NpyIntArray read_npy_integers(const std::filesystem::path& path, uint64_t max_bytes) {
  return npy_errors([&] {
    const ReadableFile file(path, "file", max_bytes);
    NpyHeader h = read_header(file, path);
    // '|' marks a one-byte type without byte order; '=' is native, which is little-endian here.
    struct IntType {
      const char* descr;
      uint64_t bytes;
      bool is_signed;
    };
    static constexpr IntType kTypes[] = {{"'|u1'", 1, false}, {"'|i1'", 1, true}, {"'<u2'", 2, false},
                                         {"'<i2'", 2, true},  {"'<u4'", 4, false}, {"'<i4'", 4, true},
                                         {"'<i8'", 8, true}};
    const IntType* type = nullptr;
    for (const IntType& t : kTypes)
      if (h.descr == t.descr) type = &t;
    if (!type)
      fail(path, "dtype " + h.descr + " is not an integer type this reader takes ('<i4', '<i8', '<i2', '<u2', '<u4', "
                                      "'|u1', '|i1'; little-endian)");
    NpyIntArray array;
    array.shape = std::move(h.shape);
    const int64_t n = checked_count(array.shape, h.data_bytes, type->bytes, h.descr.c_str(), path);
    if (static_cast<uint64_t>(n) * type->bytes != h.data_bytes) fail(path, "trailing bytes after the data");
    file.check_memory_for(h.data_bytes + static_cast<uint64_t>(n) * sizeof(int64_t), "its data, widened to int64,");
    const std::string raw = file.read(h.data_start, h.data_bytes);
    array.data.resize(static_cast<size_t>(n));
    for (size_t i = 0; i < array.data.size(); ++i) {
      const char* p = raw.data() + i * type->bytes;
      uint64_t u = 0;
      std::memcpy(&u, p, type->bytes);  // little-endian host: the low bytes
      if (type->is_signed && type->bytes < 8 && (u >> (8 * type->bytes - 1)) != 0)
        u |= ~uint64_t{0} << (8 * type->bytes);
      array.data[i] = static_cast<int64_t>(u);
    }
    return array;
  });
}

std::string encode_npy_byte_strings(const std::vector<std::string>& strings, const std::string& where) {
  size_t width = 1;
  for (const std::string& l : strings) width = std::max(width, l.size());
  std::string data;
  for (const std::string& l : strings) data += l + std::string(width - l.size(), '\0');
  return encode_npy_typed("|S" + std::to_string(width), data.data(), width, strings.size(),
                          {static_cast<int64_t>(strings.size())}, where);
}

}  // namespace sinklab
