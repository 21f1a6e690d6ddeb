#pragma once
// The weights of a Hugging Face model folder: `model.safetensors`, or the sharded form
// `model.safetensors.index.json` ({"weight_map": {tensor: shard file}}) with its shards
// (`model-00001-of-00002.safetensors`, ...). Every shard's header is read and checked up front; a
// tensor is then read piece by piece straight into its destination (SafetensorsReader::read_into).
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "run_files/safetensors_file.h"

namespace sinklab {

class HfWeights {
 public:
  // Throws OpenModelError (models/open_models/hf_config.h) for a folder with neither file, an index
  // that is not the documented JSON, a shard the index names but the folder lacks, a tensor the index
  // puts in a shard that does not hold it, or a tensor two shards hold; SafetensorsError for a damaged shard.
  explicit HfWeights(const std::filesystem::path& folder);
  // One safetensors file on its own (GPT-2's probe takes a file, docs/gpt2.md).
  static HfWeights single_file(const std::filesystem::path& file);

  std::vector<std::string> names() const;  // sorted
  const SafetensorsEntry* find(const std::string& name) const;
  // Reads elements [begin, begin + count) of a tensor as float32 into `out`.
  void read_into(const std::string& name, uint64_t begin, uint64_t count, float* out) const;
  // The whole tensor as float32 (for layouts that must be rearranged: GPT-2's Conv1D).
  NamedTensor read(const std::string& name) const;
  // The file a tensor lives in, for messages.
  std::string file_of(const std::string& name) const;
  uint64_t bytes_on_disk() const { return bytes_; }  // of every tensor's data
  std::string description() const;                  // "model.safetensors" or "2 shards (model.safetensors.index.json)"
  std::string where() const;                        // the file, or the folder of the shards, for messages

 private:
  HfWeights() = default;
  const SafetensorsReader& reader_of(const std::string& name) const;
  void count_bytes();

  std::filesystem::path folder_;
  std::vector<std::unique_ptr<SafetensorsReader>> shards_;
  std::map<std::string, size_t> shard_of_;  // tensor -> index into shards_
  uint64_t bytes_ = 0;
  bool sharded_ = false;
};

}  // namespace sinklab
