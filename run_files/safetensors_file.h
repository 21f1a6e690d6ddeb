#pragma once
// safetensors files (the Hugging Face format that PyTorch, JAX and NumPy tools read):
//   u64 little-endian N, then N bytes of JSON header
//     {"__metadata__": {string: string}, NAME: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, ...}
//   (padded with spaces to a multiple of 8 bytes), then the data: each tensor's little-endian floats at
//   [begin, end) of the data, the tensors back to back with no gap and nothing after the last one.
// The writer keeps the given order of tensors and metadata, so equal input gives equal bytes. The reader
// checks everything a file could get wrong and throws SafetensorsError naming the file and the problem.
// decode_safetensors / read_safetensors (sinklab's own files) take F32 only and hold the whole file;
// SafetensorsReader (other programs' checkpoints, GPT-2's are 0.5 .. 6.4 GB) reads the header once and
// then one tensor at a time, converting F16 and BF16 to float.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "run_files/named_tensor.h"
#include "run_files/run_summary.h"  // RunFileError: a bad file the user gave

namespace sinklab {

class SafetensorsError : public RunFileError {
 public:
  using RunFileError::RunFileError;
};

using SafetensorsMetadata = std::vector<std::pair<std::string, std::string>>;

struct SafetensorsContent {
  std::vector<NamedTensor> tensors;  // in the order of their data
  SafetensorsMetadata metadata;      // "__metadata__", in file order
};

inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;  // as the reference implementation
inline constexpr uint64_t kMaxSafetensorsFileBytes = uint64_t{1} << 34;

// The file's bytes. Throws SafetensorsError (naming `where`) for a name that is empty or repeated, a
// metadata key "__metadata__" used as a tensor name, or values that do not fill the shape.
std::string encode_safetensors(const std::vector<NamedTensor>& tensors, const SafetensorsMetadata& metadata,
                               const std::string& where);
// Writes the file atomically (core/io/file_write.h).
void write_safetensors(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
                       const SafetensorsMetadata& metadata);

// Parses a whole file's bytes; `where` names it in messages ("safetensors file <where>: ...").
SafetensorsContent decode_safetensors(std::string_view bytes, const std::string& where);
SafetensorsContent read_safetensors(const std::filesystem::path& path);

// One header entry: dtype as the file spells it ("F32", "F16", "BF16", "I64", ...), its data at
// [begin, end) of the data section.
struct SafetensorsEntry {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

class SafetensorsReader {
 public:
  // Reads and checks the header (as decode_safetensors does, any dtype of the format allowed);
  // throws SafetensorsError or FileReadError (core/io/file_read.h) naming the file.
  explicit SafetensorsReader(std::filesystem::path path);

  const std::filesystem::path& path() const { return path_; }
  const std::vector<SafetensorsEntry>& entries() const { return entries_; }  // in the order of their data
  const SafetensorsMetadata& metadata() const { return metadata_; }
  const SafetensorsEntry* find(std::string_view name) const;  // nullptr when absent

  // The tensor as float32 values. Throws SafetensorsError naming the file and the tensor when it is
  // absent or its dtype is not F32, F16 or BF16; FileReadError when the file changed underneath.
  NamedTensor read(const std::string& name) const;
  // Elements [begin, begin + count) of the tensor (row-major) converted to float32 straight into `out`,
  // read in pieces of a few MB: a checkpoint is never held twice, whatever the tensor's size. Throws as
  // read, and SafetensorsError for a range outside the tensor.
  void read_into(const std::string& name, uint64_t begin, uint64_t count, float* out) const;

 private:
  std::filesystem::path path_;
  uint64_t data_start_ = 0;  // byte offset of the data section in the file
  std::vector<SafetensorsEntry> entries_;
  SafetensorsMetadata metadata_;
};

}  // namespace sinklab
