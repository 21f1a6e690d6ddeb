#pragma once
// The attention maps the explorer page steps through, from a run folder:
//   attention_snapshots.npz  (written during training) arrays
//     steps [S] int, mean and example [S, L, H, R, C] float32 or float16, rows [R] and cols [C] int (the
//     positions the stored rows and columns stand for), roles [T] uint8 (core/observe/position_roles.h
//     flags), tokens [T] int (token tasks only), seq_len (a scalar or [1]);
//   or, without that file, the final maps attention/layer{l}_head{h}_{mean,sample0}.npy as one step.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "run_files/npz_reader.h"

namespace sinklab {

inline constexpr const char* kAttentionSnapshotsFile = "attention_snapshots.npz";

struct AttentionSnapshots {
  std::vector<int64_t> steps;                  // S training steps, increasing
  int64_t layers = 0, heads = 0;               // L, H
  std::vector<int64_t> rows, cols;             // R query positions, C key positions
  std::vector<float> mean;                     // [S, L, H, R, C]
  std::vector<float> example;                  // [S, L, H, R, C], or empty when the run stored none
  std::vector<uint8_t> roles;                  // [T], empty when unknown
  std::vector<int64_t> tokens;                 // [T], empty for tasks without tokens
  std::vector<std::string> token_labels;       // [T] each token's text (any bytes), empty when unknown
  int64_t seq_len = 0;                         // T
  std::string source;                          // what the maps come from, for the page: a file name
  int64_t map_size() const { return static_cast<int64_t>(rows.size() * cols.size()); }  // R * C
};

// Checks the arrays of a snapshot file (read with run_files/npz_reader.h) and gathers them. Throws
// NpzError naming `where` and what is wrong: a missing array, shapes that disagree, steps out of
// order, positions outside [0, seq_len).
AttentionSnapshots attention_snapshots_from(const NpzArrays& arrays, const std::string& where);
// Reads and checks a snapshot file; errors name it (unreadable archive included).
AttentionSnapshots read_attention_snapshots(const std::filesystem::path& path);

// The final maps under <run_dir>/attention as a single snapshot at `final_step`, or nothing when the
// run has none (report/explorer/final_maps_snapshot.cpp). Throws NpyError for a map that cannot be read.
std::optional<AttentionSnapshots> final_maps_snapshot(const std::filesystem::path& run_dir, int64_t final_step, int seq_len);

}  // namespace sinklab
