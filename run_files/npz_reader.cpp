#include "run_files/npz_reader.h"

#include <zip.h>

#include <bit>
#include <cstring>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <memory>
#include <optional>

#include "core/io/file_read.h"
#include "core/system_memory.h"
#include "run_files/half_float.h"
#include "run_files/npy_header.h"

namespace sinklab {
namespace {

static_assert(std::endian::native == std::endian::little, "npz: little-endian data is read as raw host values");

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw NpzError("npz file " + where + ": " + why);
}

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

// Reads one entry exactly as far as asked: never more than its directory declares, so a forged size
// or a zip bomb is stopped at the declared size and nothing is allocated beyond what was checked.
class EntryReader {
 public:
  EntryReader(zip_t* archive, zip_uint64_t index, const std::string& where, uint64_t declared)
      : file_(zip_fopen_index(archive, index, 0), zip_fclose), where_(where), left_(declared) {
    if (!file_) fail(where, std::string("cannot open: ") + zip_strerror(archive));
  }
  // The next n bytes (n was checked against the declared size by the caller's arithmetic).
  std::string take(uint64_t n) {
    if (n > left_) fail(where_, "truncated header");
    std::string out(n, '\0');
    read_into(out.data(), n, "inflates to fewer bytes than its directory declares (truncated or corrupt)");
    left_ -= n;
    return out;
  }
  // After the last declared byte: the stream must end there.
  void expect_end() {
    char extra = 0;
    const zip_int64_t n = zip_fread(file_.get(), &extra, 1);
    if (n < 0) fail(where_, std::string("cannot read (truncated or corrupt): ") + zip_file_strerror(file_.get()));
    if (n > 0) fail(where_, "inflates to more bytes than its directory declares (a forged size or a zip bomb)");
  }

 private:
  void read_into(char* out, uint64_t n, const char* short_read) {
    uint64_t done = 0;
    while (done < n) {
      const uint64_t piece = std::min<uint64_t>(n - done, uint64_t{1} << 24);
      const zip_int64_t got = zip_fread(file_.get(), out + done, piece);
      if (got < 0) fail(where_, std::string("cannot read (truncated or corrupt): ") + zip_file_strerror(file_.get()));
      if (got == 0) fail(where_, short_read);
      done += static_cast<uint64_t>(got);
    }
  }
  std::unique_ptr<zip_file_t, decltype(&zip_fclose)> file_;
  std::string where_;
  uint64_t left_;
};

// Bytes one element takes once decoded: a float, an int64 or a std::string with its characters.
uint64_t decoded_bytes(const NpzArray& array, uint64_t item) {
  if (array.is_strings()) return sizeof(std::string) + item;
  return array.is_float() ? sizeof(float) : sizeof(int64_t);
}

// One entry of `declared` bytes (its zip directory's uncompressed size, checked against `budget` by
// the caller): the .npy header first, then the shape against the declared size and the memory its
// decoded values take against the budget, and only then the data. Returns the array; `budget` drops by
// the decoded bytes.
NpzArray read_npy_entry(EntryReader& in, uint64_t declared, const std::string& where, uint64_t& budget) {
  constexpr std::string_view kMagic("\x93NUMPY", 6);
  if (declared < 10) fail(where, "not a .npy entry (bad magic)");
  const std::string start = in.take(10);
  if (std::string_view(start).substr(0, 6) != kMagic) fail(where, "not a .npy entry (bad magic)");
  const auto version = static_cast<unsigned char>(start[6]);
  const auto byte = [](const std::string& s, size_t i) {
    return static_cast<uint64_t>(static_cast<unsigned char>(s[i]));
  };
  uint64_t header_start = 10, header_len = 0;
  if (version == 1) {
    header_len = byte(start, 8) | (byte(start, 9) << 8);
  } else if (version == 2 || version == 3) {
    if (declared < 12) fail(where, "truncated header");
    const std::string more = in.take(2);
    header_start = 12;
    header_len = byte(start, 8) | (byte(start, 9) << 8) | (byte(more, 0) << 16) | (byte(more, 1) << 24);
  } else {
    fail(where, "unsupported .npy format version " + std::to_string(version));
  }
  if (header_len > declared - header_start) fail(where, "truncated header");
  const std::string header = in.take(header_len);
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
    if (width.empty() || width.size() > 6 || width.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(width) == 0)
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

  // The element count against the declared data size, before the data is inflated or anything is
  // allocated from it.
  const uint64_t data_bytes = declared - header_start - header_len;
  uint64_t count = 1;
  for (const int64_t d : array.shape) {
    if (d != 0 && count > data_bytes / static_cast<uint64_t>(d)) {
      count = std::numeric_limits<uint64_t>::max();
      break;
    }
    count *= static_cast<uint64_t>(d);
  }
  if (count == std::numeric_limits<uint64_t>::max() || count * size != data_bytes)
    fail(where,
         "data holds " + std::to_string(data_bytes) + " bytes, the shape needs " +
             (count == std::numeric_limits<uint64_t>::max() ? std::string("more") : std::to_string(count * size)));
  const uint64_t decoded = count * decoded_bytes(array, size);  // count * size fits: it is data_bytes
  if (decoded > budget || data_bytes > budget - decoded)
    fail(where, "its " + std::to_string(count) + " values need " + std::to_string(decoded + data_bytes) +
                    " bytes of memory while read, more than the " + std::to_string(budget) +
                    " left of this reader's limit");
  budget -= decoded;
  const std::string raw = in.take(data_bytes);
  in.expect_end();
  const char* data = raw.data();
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
      array.floats[i] = size == 2   ? half_to_float(load<uint16_t>(p))
                        : size == 4 ? load<float>(p)
                                    : static_cast<float>(load<double>(p));
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

// Every ".npy" entry of an open archive, each entry's declared size checked against what is left of
// max_bytes before it is inflated.
NpzArrays decode_archive(zip_t* archive, const std::string& where, uint64_t max_bytes) {
  NpzArrays arrays;
  uint64_t budget = max_bytes;
  const zip_int64_t entries = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    const auto index = static_cast<zip_uint64_t>(i);
    const char* raw_name = zip_get_name(archive, index, 0);
    if (raw_name == nullptr) fail(where, "entry " + std::to_string(i) + " has no name");
    const std::string name = raw_name;
    if (name.size() <= 4 || name.substr(name.size() - 4) != ".npy") continue;
    const std::string entry_where = where + " entry " + name;
    const std::string key = name.substr(0, name.size() - 4);
    if (arrays.contains(key)) fail(where, "entry " + name + " appears twice");
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(archive, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
      fail(entry_where, std::string("cannot read its size: ") + zip_strerror(archive));
    if (st.size > budget)
      fail(entry_where, "declares " + std::to_string(st.size) + " bytes uncompressed, more than the " +
                            std::to_string(budget) + " left of this reader's limit (a forged size or a zip bomb?)");
    EntryReader in(archive, index, entry_where, st.size);
    arrays.emplace(key, read_npy_entry(in, st.size, entry_where, budget));
  }
  return arrays;
}

}  // namespace

int64_t NpzArray::element_count() const {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

NpzArrays decode_npz(std::string_view bytes, const std::string& where, uint64_t max_bytes) {
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
  return decode_archive(archive.get(), where, max_bytes);
}

NpzArrays read_npz(const std::filesystem::path& path, uint64_t max_bytes) {
  const std::string where = path.string();
  // The memory the machine has left bounds the arrays too.
  const std::optional<double> available = available_memory();
  if (available && *available < static_cast<double>(max_bytes)) max_bytes = static_cast<uint64_t>(*available);
  try {
    const ReadableFile file(path, "file", max_bytes);  // refuses a FIFO, a device, a directory by name
    if (file.size() == 0) fail(where, "empty file");
    // libzip reads the archive from its own copy of the descriptor: the archive is never held whole.
    const int fd = ::dup(file.fd());
    if (fd < 0) fail(where, std::string("cannot read: ") + std::strerror(errno));
    int code = 0;
    zip_t* opened = zip_fdopen(fd, ZIP_CHECKCONS, &code);
    if (opened == nullptr) {
      ::close(fd);
      zip_error_t error;
      zip_error_init_with_code(&error, code);
      const std::string why = zip_error_strerror(&error);
      zip_error_fini(&error);
      fail(where, "not a readable zip archive (truncated or corrupt?): " + why);
    }
    const std::unique_ptr<zip_t, decltype(&zip_discard)> archive(opened, zip_discard);
    return decode_archive(archive.get(), where, max_bytes);
  } catch (const FileReadError& e) {
    throw NpzError(std::string("npz ") + e.what());
  }
}

}  // namespace sinklab
