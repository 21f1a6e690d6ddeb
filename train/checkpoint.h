#pragma once
// Checkpoints: everything needed to resume a run bit-identically.
// Layout (little-endian): magic "SINKCKPT", u32 version (2), u64 config hash, u64 payload bytes,
// u64 FNV-1a checksum of the payload, then the payload:
//   i64 steps done, i64 optimizer steps, RNG state (4 x u64, u8 has_cached, f64 cached),
//   u64 metrics.jsonl lines, u8 stop rule met, f64 last training loss,
//   u64 parameter floats, values, u32 moment count, each moment block (same length).
// Written atomically (core/io/file_write.h), so a crash never leaves a half-written checkpoint.
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

// Which stop rule a run had met when its checkpoint was written (the final checkpoint), so that a run
// killed between its final checkpoint and its summary finishes as it would have.
enum class StopRule : uint8_t { none = 0, max_abs_error = 1, loss = 2 };

struct TrainingState {
  int64_t step = 0;  // steps done: the next step a resumed run executes
  int64_t optimizer_steps = 0;
  RngState rng;
  uint64_t metrics_lines = 0;  // metrics.jsonl's lines at the checkpoint: a resume cuts the log back to them
  StopRule stop = StopRule::none;
  double last_loss = 0.0;      // training loss of the last step, reported when the run ends
};

void save_checkpoint(const std::filesystem::path& path, uint64_t config_hash, ParameterStore& params,
                     const TrainingState& state);
// Verifies magic, version, config hash, sizes and checksum; throws CheckpointError naming the file.
TrainingState load_checkpoint(const std::filesystem::path& path, uint64_t config_hash, ParameterStore& params);

}  // namespace sinklab
