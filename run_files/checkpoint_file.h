#pragma once
// Checkpoint files, format 4: parameters and optimizer moments stored by name with their shapes, the
// two hashes a reader checks, and a training-state blob that run_files/checkpoint.cpp encodes (this file
// never looks inside it). docs/models.md describes the format and when each hash must match.
//
// Layout (little-endian):
//   header, 60 bytes: magic "SINKCKPT", u32 version (4), u64 model-shaping hash, u64 config hash,
//     u64 table bytes, u64 data bytes, u64 table checksum, u64 data checksum
//   table: u32 parameter count, per parameter {u32 name bytes, name, u32 rank, i64 dims[rank]},
//     u32 moment count, per moment {u32 name bytes, name}, u64 training-state bytes
//   data: each parameter's f32 values (row-major, numel of its shape) in table order; then per
//     moment, each parameter's values of that moment in table order; then the training state.
// A moment block named "moment.K" is ParameterStore::moment(K). The table checksum is FNV-1a 64 over the
// header's first 44 bytes (so a damaged hash reads as corruption, not as another config) and the table;
// the data checksum is XXH3-64 (libxxhash) over the data. Format 3 is the same with an FNV-1a 64 data
// checksum: it is still read, never written. Files are written atomically (core/io/file_write.h).
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/parameter_store.h"

namespace sinklab {

// A checkpoint that cannot be used: the message names the file and the problem.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a checkpoint records of its run's config (config_loading/config_writer.h): `model` covers the keys
// that shape the model (model_shaping_hash), `config` the whole resolved config (config_hash).
struct CheckpointHashes {
  uint64_t model = 0;
  uint64_t config = 0;
};

// Loading weights needs only the model to match (hashes.model, then names and shapes); resuming a run
// needs the whole config to match (both hashes) and restores the optimizer moments as well.
enum class CheckpointUse { weights, resume };

inline constexpr uint32_t kCheckpointFormat = 4;  // the format written; 3 and 4 are read
inline constexpr int kMaxCheckpointMoments = 2;              // Adam's two
inline constexpr uint64_t kMaxTrainingStateBytes = 1 << 16;  // run_files/checkpoint.cpp's blob: at most 598 bytes

// Writes `params` (values and every allocated moment, by name) and `training_state`.
// Throws FileWriteError (core/io/file_write.h) when the file cannot be written.
void write_checkpoint_file(const std::filesystem::path& path, const CheckpointHashes& hashes, ParameterStore& params,
                           std::string_view training_state);

// Reads a checkpoint into `params` (finalized) by name and returns its training-state blob. Checks, in
// order: a regular file, magic, format, sizes, the table's checksum, the hashes `use` needs, names
// and shapes against `params` (every missing, unexpected or reshaped parameter is named), the data's
// checksum. The table is read and checked before the data, so no more is read than the model can need.
// Throws CheckpointError naming the file; `params` is only written once every check has passed.
std::string read_checkpoint_file(const std::filesystem::path& path, const CheckpointHashes& expected, CheckpointUse use,
                                 ParameterStore& params);

// The training-state blob of a checkpoint without a model and without reading the weights: checks the
// magic, format, sizes and the table's checksum (not the data's). Throws CheckpointError naming the file.
std::string read_checkpoint_training_state(const std::filesystem::path& path);

// What makes the file unusable as a checkpoint of any model, as read_checkpoint_file words it (the
// file named first); empty when its magic, format, sizes, table and both checksums are right. Reads
// the whole file in pieces. A sweep checks a run's checkpoint with it before resuming the run.
std::string checkpoint_damage(const std::filesystem::path& path);

}  // namespace sinklab
