#pragma once
// Checkpoints: everything needed to resume a run bit-identically.
// Layout (little-endian): magic "SINKCKPT", u32 version, u64 config hash, u64 payload bytes,
// u64 FNV-1a checksum of the payload, then the payload:
//   i64 step, i64 optimizer steps, RNG state (4 x u64, u8 has_cached, f64 cached),
//   u64 parameter floats, values, u32 moment count, each moment block (same length).
// Written to "<path>.tmp" and renamed, so a crash never leaves a half-written checkpoint.
#include <cstdint>
#include <filesystem>
#include <stdexcept>

#include "core/parameter_store.h"
#include "core/rng.h"

namespace sinklab {

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TrainingState {
  int64_t step = 0;
  int64_t optimizer_steps = 0;
  RngState rng;
};

void save_checkpoint(const std::filesystem::path& path, uint64_t config_hash, ParameterStore& params,
                     const TrainingState& state);
// Verifies magic, version, config hash, sizes and checksum; throws CheckpointError naming the file.
TrainingState load_checkpoint(const std::filesystem::path& path, uint64_t config_hash, ParameterStore& params);

}  // namespace sinklab
