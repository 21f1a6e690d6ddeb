#include "run_files/npz_reader.h"

#include <zip.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>

#include "run_files/half_float.h"
#include "run_files/npy_header.h"

namespace sinklab {
namespace {

static_assert(std::endian::native == std::endian::little, "npz: little-endian data is read as raw host values");

[[noreturn]] void fail(const std::string& where, const std::string& why) { throw NpzError("npz file " + where + ": " + why); }

// Bytes per element of a supported dtype, 0 for others.
size_t item_size(const std::string& dtype) {
  static const std::map<std::string, size_t> sizes = {{"<f2", 2}, {"<f4", 4}, {"<f8", 8}, {"|u1", 1}, {"|i1", 1},
                                                      {"<u2", 2}, {"<i2", 2}, {"<u4", 4}, {"<i4", 4}, {"<i8", 8}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

NpzArray decode_npy(const std::string& bytes, const std::string& where) {
  constexpr std::string_view kMagic("\x93NUMPY", 6);
  if (bytes.size() < 10 || std::string_view(bytes).substr(0, 6) != kMagic) fail(where, "not a .npy entry (bad magic)");
  const auto version = static_cast<unsigned char>(bytes[6]);
  size_t header_start = 0, header_len = 0;
  const auto byte = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(bytes[i])); };
  if (version == 1) {
    header_start = 10;
    header_len = byte(8) | (byte(9) << 8);
  } else if (version == 2 || version == 3) {
    if (bytes.size() < 12) fail(where, "truncated header");
    header_start = 12;
    header_len = byte(8) | (byte(9) << 8) | (byte(10) << 16) | (byte(11) << 24);
  } else {
    fail(where, "unsupported .npy format version " + std::to_string(version));
  }
  if (header_len > bytes.size() - header_start) fail(where, "truncated header");
  const std::string header = bytes.substr(header_start, header_len);
  NpzArray array;
  NpyHeaderDict dict;
  try {
    dict = parse_npy_header_dict(header);
  } catch (const NpyHeaderProblem& e) {
    fail(where, e.what());
  }
  const std::string& descr = dict.descr;
  if (descr.size() < 5 || (descr.front() != '\'' && descr.front() != '"') || descr.back() != descr.front())
    fail(where, "unsupported dtype " + descr);
  size_t size = 0;
  if (descr.compare(1, 2, "|S") == 0) {  // fixed-width byte strings, NUL-padded: '|S<width>'
    array.dtype = "|S";
    const std::string width = descr.substr(3, descr.size() - 4);
    if (width.empty() || width.size() > 6 || width.find_first_not_of("0123456789") != std::string::npos || std::stoul(width) == 0)
      fail(where, "unsupported dtype " + descr);
    size = std::stoul(width);
  } else {
    if (descr.size() != 5) fail(where, "unsupported dtype " + descr);
    array.dtype = descr.substr(1, 3);
    size = item_size(array.dtype);
  }
  if (size == 0) fail(where, "unsupported dtype " + descr + " (little-endian floats and integers, byte strings only)");
  if (dict.fortran_order) fail(where, "Fortran order is not supported");
  array.shape = dict.shape;

  // Element count against the data actually present, before anything is allocated from it.
  const size_t data_bytes = bytes.size() - header_start - header_len;
  uint64_t count = 1;
  for (const int64_t d : array.shape) {
    if (d != 0 && count > data_bytes / static_cast<uint64_t>(d)) {
      count = std::numeric_limits<uint64_t>::max();
      break;
    }
    count *= static_cast<uint64_t>(d);
  }
  if (count == std::numeric_limits<uint64_t>::max() || count * size != data_bytes)
    fail(where, "data holds " + std::to_string(data_bytes) + " bytes, the shape needs " +
                    (count == std::numeric_limits<uint64_t>::max() ? std::string("more") : std::to_string(count * size)));
  const char* data = bytes.data() + header_start + header_len;
  if (array.is_strings()) {
    array.strings.resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      std::string_view item(data + i * size, size);
      item = item.substr(0, item.find_last_not_of('\0') + 1);  // NumPy drops the padding (npos + 1 = 0: all NULs)
      array.strings[i] = std::string(item);
    }
  } else if (array.is_float()) {
    array.floats.resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      const char* p = data + i * size;
      array.floats[i] = size == 2 ? half_to_float(load<uint16_t>(p)) : size == 4 ? load<float>(p) : static_cast<float>(load<double>(p));
    }
  } else {
    array.integers.resize(count);
    const char kind = array.dtype[1];
    for (uint64_t i = 0; i < count; ++i) {
      const char* p = data + i * size;
      int64_t v = 0;
      if (size == 1) v = kind == 'u' ? load<uint8_t>(p) : load<int8_t>(p);
      else if (size == 2) v = kind == 'u' ? load<uint16_t>(p) : load<int16_t>(p);
      else if (size == 4) v = kind == 'u' ? static_cast<int64_t>(load<uint32_t>(p)) : load<int32_t>(p);
      else v = load<int64_t>(p);
      array.integers[i] = v;
    }
  }
  return array;
}

// One entry's bytes, read in chunks so a forged size in the directory allocates nothing up front.
std::string read_entry(zip_t* archive, zip_uint64_t index, const std::string& where, uint64_t max_bytes) {
  const std::unique_ptr<zip_file_t, decltype(&zip_fclose)> file(zip_fopen_index(archive, index, 0), zip_fclose);
  if (!file) fail(where, std::string("cannot open: ") + zip_strerror(archive));
  std::string out;
  char chunk[1 << 16];
  for (;;) {
    const zip_int64_t n = zip_fread(file.get(), chunk, sizeof chunk);
    if (n < 0) fail(where, std::string("cannot read (truncated or corrupt): ") + zip_file_strerror(file.get()));
    if (n == 0) break;
    if (out.size() + static_cast<uint64_t>(n) > max_bytes) fail(where, "entry larger than " + std::to_string(max_bytes) + " bytes");
    out.append(chunk, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace

int64_t NpzArray::element_count() const {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

NpzArrays decode_npz(std::string_view bytes, const std::string& where, uint64_t max_entry_bytes) {
  if (bytes.empty()) fail(where, "empty file");
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (source == nullptr) fail(where, std::string("cannot read: ") + zip_error_strerror(&error));
  zip_t* opened = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (opened == nullptr) {
    zip_source_free(source);
    const std::string why = zip_error_strerror(&error);
    zip_error_fini(&error);
    fail(where, "not a readable zip archive (truncated or corrupt?): " + why);
  }
  const std::unique_ptr<zip_t, decltype(&zip_discard)> archive(opened, zip_discard);
  NpzArrays arrays;
  const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    const char* raw_name = zip_get_name(archive.get(), static_cast<zip_uint64_t>(i), 0);
    if (raw_name == nullptr) fail(where, "entry " + std::to_string(i) + " has no name");
    const std::string name = raw_name;
    if (name.size() <= 4 || name.substr(name.size() - 4) != ".npy") continue;
    const std::string entry_where = where + " entry " + name;
    const std::string key = name.substr(0, name.size() - 4);
    if (arrays.contains(key)) fail(where, "entry " + name + " appears twice");
    arrays.emplace(key, decode_npy(read_entry(archive.get(), static_cast<zip_uint64_t>(i), entry_where, max_entry_bytes), entry_where));
  }
  return arrays;
}

NpzArrays read_npz(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail(path.string(), "missing or not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path.string(), "cannot open for reading");
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) fail(path.string(), "read error");
  return decode_npz(bytes, path.string());
}

}  // namespace sinklab
