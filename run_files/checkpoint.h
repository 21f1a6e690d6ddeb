#pragma once
// Checkpoints of a training run: everything needed to resume it bit-identically. The file is format 4
// of run_files/checkpoint_file.h (parameters and optimizer moments by name, the model-shaping and the config
// hash); the training state below is its opaque blob, encoded here (little-endian, 86 + 8 K bytes):
//   i64 steps done, i64 optimizer steps, RNG state (4 x u64, u8 has_cached, f64 cached),
//   u64 metrics.jsonl lines, u8 stop rule met, f64 last training loss,
//   i64 snapshot interval, u32 K, u64 snapshot hashes[K] (SnapshotRecord).
// A blob of the first 74 bytes only (written before snapshots were recorded) still reads, as a state
// whose SnapshotRecord is not recorded.
// Written atomically (core/io/file_write.h), so a crash never leaves a half-written checkpoint.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "core/parameter_store.h"
#include "core/rng.h"
#include "run_files/checkpoint_file.h"  // CheckpointError, CheckpointHashes

namespace sinklab {

// Which stop rule a run had met when its checkpoint was written (the final checkpoint), so that a run
// killed between its final checkpoint and its summary finishes as it would have.
enum class StopRule : uint8_t { none = 0, max_abs_error = 1, loss = 2 };

// What attention_snapshots.npz held when the checkpoint was written (run_files/attention_snapshot_file.h,
// record_attention_snapshots): a resume keeps the file only if it is still these snapshots.
struct SnapshotRecord {
  bool recorded = true;   // false: a checkpoint from before snapshots were recorded (nothing to check against)
  int64_t interval = 0;   // the snapshot interval at the checkpoint's step; 0 = the run takes no snapshots
  std::vector<uint64_t> hashes;  // [k]: the kept snapshots thinned to multiples of interval << k
};
inline constexpr uint32_t kMaxSnapshotHashes = 64;

struct TrainingState {
  int64_t step = 0;  // steps done: the next step a resumed run executes
  int64_t optimizer_steps = 0;
  RngState rng;
  uint64_t metrics_lines = 0;  // metrics.jsonl's lines at the checkpoint: a resume cuts the log back to them
  StopRule stop = StopRule::none;
  double last_loss = 0.0;      // training loss of the last step, reported when the run ends
  SnapshotRecord snapshots;
};

void save_checkpoint(const std::filesystem::path& path, const CheckpointHashes& hashes, ParameterStore& params,
                     const TrainingState& state);
// For a resume: both hashes must match; restores parameters and optimizer moments. Throws
// CheckpointError naming the file and the problem. A training state that does not decode is found
// after the parameters were copied (it passed the data checksum, so only a hand-made file gets there).
TrainingState load_checkpoint(const std::filesystem::path& path, const CheckpointHashes& hashes,
                              ParameterStore& params);
// The training state alone (the step a resume starts from), for readers of a run folder without its model.
// Throws CheckpointError naming the file.
TrainingState read_training_state(const std::filesystem::path& path);

}  // namespace sinklab
