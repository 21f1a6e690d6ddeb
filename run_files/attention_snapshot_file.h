#pragma once
// attention_snapshots.npz in a run folder: the attention snapshots of stats/attention_snapshots.h as
// one NumPy archive that numpy.load opens alone (docs/analysis.md lists its arrays):
//   steps int64 [S]; mean, example float32 [S, layers, heads, R, C]; rows, cols int32 [R], [C] (the
//   first original position of each stored row / column); roles uint8 [T]; tokens int32 [T] (token
//   tasks only); token_labels |S<width> [T] (each token's text, tasks that have it); seq_len int64 [] (T).
// Written atomically, so an interrupted run leaves the previous complete file.
#include <filesystem>

#include "run_files/checkpoint.h"  // SnapshotRecord
#include "run_files/npz_reader.h"
#include "run_files/run_summary.h"  // RunFileError
#include "stats/attention_snapshots.h"

namespace sinklab {

class AttentionSnapshotFileError : public RunFileError {
 public:
  using RunFileError::RunFileError;
};

inline constexpr const char* kAttentionSnapshotsFile = "attention_snapshots.npz";

// The archive's bytes (equal snapshots give equal bytes). Throws AttentionSnapshotFileError when the
// arrays do not fit their dimensions.
std::string encode_attention_snapshots(const AttentionSnapshots& snapshots, const std::string& where);
void write_attention_snapshots(const std::filesystem::path& path, const AttentionSnapshots& snapshots);

// Reads a file written by write_attention_snapshots. Throws AttentionSnapshotFileError naming the file
// and what is wrong: missing, truncated or corrupt archive, a missing array, a wrong type or shape.
// The reader accepts any float type for the maps (a float16 copy made with NumPy works too). A caller
// that knows the run bounds the archive by what the run can have written (max_bytes, see
// snapshot_file_bound): an entry declaring more is refused before it is inflated.
AttentionSnapshots read_attention_snapshots(const std::filesystem::path& path, uint64_t max_bytes = kMaxNpzBytes);
// The most a run with `heads` heads in all (layers x heads) and `steps` steps can write: at most one
// snapshot per step plus the final one, each two maps over at most kSnapshotFullSide positions a side.
uint64_t snapshot_file_bound(int64_t heads, int64_t steps);
// The same checks on an archive already decoded (run_files/npz_reader.h); errors name `where`.
AttentionSnapshots decode_attention_snapshots(const NpzArrays& arrays, const std::string& where);

// The identity of the snapshots a resume from a checkpoint at `steps_done` keeps: FNV-1a over the frame
// (layers, heads, seq_len, roles, tokens, token_labels) and, for each snapshot of a step below steps_done
// at a multiple of `interval`, its step and its mean and example maps as stored.
uint64_t attention_snapshots_hash(const AttentionSnapshots& snapshots, int64_t steps_done, int64_t interval);

// A checkpoint's record of `snapshots` at `steps_done`, where the run's snapshot interval is `interval`:
// the hash above for interval, 2 interval, 4 interval ... up to the first one >= steps_done. The later
// ones let a resume recognise a file that a thinning after the checkpoint rewrote just before a kill.
SnapshotRecord record_attention_snapshots(const AttentionSnapshots& snapshots, int64_t steps_done, int64_t interval);

}  // namespace sinklab
