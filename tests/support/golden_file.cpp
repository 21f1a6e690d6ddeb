#include "tests/support/golden_file.h"

#include <bit>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

namespace sinklab::testing {
namespace {

constexpr char kMagic[] = "SLGOLD01";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;
// Far above anything the generator writes; a larger value means a corrupt header, not a real tensor.
constexpr uint32_t kMaxRank = 16;

// Walks the file's bytes; every read names what it was reading so a short file says where it ended.
class ByteReader {
 public:
  ByteReader(const std::string& path, const std::vector<unsigned char>& bytes) : path_(path), bytes_(bytes) {}

  size_t remaining() const { return bytes_.size() - pos_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw GoldenFileError("golden file '" + path_ + "': " + what);
  }

  void require(uint64_t n, const std::string& what) const {
    if (n > remaining()) {
      fail("truncated while reading " + what + " at byte " + std::to_string(pos_) + " (needs " + std::to_string(n) +
           " bytes, " + std::to_string(remaining()) + " left)");
    }
  }

  // Little-endian by construction, independent of the host's byte order.
  uint64_t unsigned_le(size_t width, const std::string& what) {
    require(width, what);
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) v |= static_cast<uint64_t>(bytes_[pos_ + i]) << (8 * i);
    pos_ += width;
    return v;
  }

  uint32_t u32(const std::string& what) { return static_cast<uint32_t>(unsigned_le(4, what)); }
  int64_t i64(const std::string& what) { return static_cast<int64_t>(unsigned_le(8, what)); }

  std::string text(size_t n, const std::string& what) {
    require(n, what);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return s;
  }

  std::vector<float> floats(uint64_t count, const std::string& what) {
    // Checked before allocating, so a corrupt dim cannot request a huge buffer.
    if (count > remaining() / 4) {
      const bool saturated = count == std::numeric_limits<uint64_t>::max();
      fail("truncated while reading " + what + " at byte " + std::to_string(pos_) + " (shape needs " +
           (saturated ? std::string("over 2^64") : std::to_string(count)) + " floats, " +
           std::to_string(remaining()) + " bytes left)");
    }
    std::vector<float> out(count);
    for (float& f : out) f = std::bit_cast<float>(static_cast<uint32_t>(unsigned_le(4, what)));
    return out;
  }

 private:
  const std::string& path_;
  const std::vector<unsigned char>& bytes_;
  size_t pos_ = 0;
};

std::vector<unsigned char> read_all(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw GoldenFileError("golden file '" + path + "': is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GoldenFileError("golden file '" + path + "': cannot open (missing or unreadable)");
  try {
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw GoldenFileError("golden file '" + path + "': read error");
    return bytes;
  } catch (const std::ios_base::failure& e) {  // libstdc++ reports some I/O errors by throwing
    throw GoldenFileError("golden file '" + path + "': read error (" + e.what() + ")");
  }
}

GoldenTensor read_tensor(ByteReader& r, const std::string& name) {
  const std::string where = "tensor '" + name + "'";
  const uint32_t rank = r.u32("rank of " + where);
  if (rank > kMaxRank) r.fail(where + " has implausible rank " + std::to_string(rank));
  GoldenTensor t;
  t.shape.resize(rank);
  uint64_t numel = 1;
  for (uint32_t i = 0; i < rank; ++i) {
    const int64_t dim = r.i64("dim " + std::to_string(i) + " of " + where);
    if (dim < 0) r.fail(where + " has negative dim " + std::to_string(dim));
    t.shape[i] = dim;
    // Saturate instead of overflowing: any product this large exceeds the file anyway.
    const auto udim = static_cast<uint64_t>(dim);
    numel = (udim != 0 && numel > std::numeric_limits<uint64_t>::max() / udim) ? std::numeric_limits<uint64_t>::max()
                                                                              : numel * udim;
  }
  std::string dims;
  for (const int64_t d : t.shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
  t.values = r.floats(numel, "data of " + where + " [" + dims + "]");
  return t;
}

}  // namespace

GoldenFile GoldenFile::load(const std::string& path) {
  const std::vector<unsigned char> bytes = read_all(path);
  ByteReader r(path, bytes);
  if (r.text(kMagicSize, "magic") != std::string(kMagic, kMagicSize)) {
    r.fail("bad magic (expected \"SLGOLD01\"; not a golden fixture)");
  }
  GoldenFile file;
  file.path_ = path;
  const uint32_t count = r.u32("tensor count");
  for (uint32_t i = 0; i < count; ++i) {
    const std::string index = "tensor #" + std::to_string(i);
    const uint32_t name_size = r.u32("name length of " + index);
    std::string name = r.text(name_size, "name of " + index);
    if (name.empty() || name.find('\0') != std::string::npos) r.fail(index + " has an empty name or one with NUL");
    if (file.tensors_.count(name) != 0) r.fail("duplicate tensor name '" + name + "'");
    GoldenTensor t = read_tensor(r, name);
    file.order_.push_back(name);
    file.tensors_.emplace(std::move(name), std::move(t));
  }
  if (r.remaining() != 0) {
    r.fail(std::to_string(r.remaining()) + " trailing bytes after the last of " + std::to_string(count) + " tensors");
  }
  return file;
}

const GoldenTensor& GoldenFile::get(const std::string& name) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw GoldenFileError("golden file '" + path_ + "': no tensor named '" + name + "'");
  return it->second;
}

bool GoldenFile::has(const std::string& name) const { return tensors_.count(name) != 0; }

std::vector<std::string> GoldenFile::names() const { return order_; }

}  // namespace sinklab::testing
