#pragma once
// Reader for the PyTorch golden fixtures written by tools/make_golden.py.
// Format (docs/golden.md), little-endian: magic "SLGOLD01", uint32 tensor count, then per tensor
// uint32 name length, UTF-8 name, uint32 rank, int64 dims[rank], float32 data (row-major).
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace sinklab::testing {

// Thrown for unreadable or malformed golden files and missing tensor names.
class GoldenFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GoldenTensor {
  std::vector<int64_t> shape;
  std::vector<float> values;

  int64_t numel() const { return static_cast<int64_t>(values.size()); }
};

class GoldenFile {
 public:
  // Reads and validates the whole file; the message names the path and what is wrong (cannot open,
  // bad magic, truncated while reading what at which byte, bad name, duplicate name, trailing bytes).
  static GoldenFile load(const std::string& path);

  const GoldenTensor& get(const std::string& name) const;  // throws GoldenFileError naming `name`
  bool has(const std::string& name) const;
  std::vector<std::string> names() const;  // in file order
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> order_;
  std::map<std::string, GoldenTensor> tensors_;
};

#ifdef SINKLAB_SOURCE_DIR
// Absolute path of a committed fixture, e.g. golden_fixture_path("attn2x2_softmax.bin").
inline std::string golden_fixture_path(const std::string& file_name) {
  return std::string(SINKLAB_SOURCE_DIR) + "/tests/fixtures/golden/" + file_name;
}
#endif

}  // namespace sinklab::testing
