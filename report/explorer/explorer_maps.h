#pragma once
// The attention maps the explorer page steps through: a run's attention snapshots
// (run_files/attention_snapshot_file.h, the one reader of attention_snapshots.npz) or, for runs
// without that file, the final maps attention/layer{l}_head{h}_{mean,sample0}.npy as one step.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "stats/attention_snapshots.h"

namespace sinklab {

struct ExplorerMaps {
  std::vector<int64_t> steps;                  // S training steps, increasing
  int64_t layers = 0, heads = 0;               // L, H
  std::vector<int64_t> rows, cols;             // R query positions, C key positions (first position each stands for)
  std::vector<float> mean;                     // [S, L, H, R, C]
  std::vector<float> example;                  // [S, L, H, R, C], or empty when the run stored none
  std::vector<uint8_t> roles;                  // [T], empty when unknown
  std::vector<int64_t> tokens;                 // [T], empty for tasks without tokens
  std::vector<std::string> token_labels;       // [T] each token's text, empty when the task has none
  int64_t seq_len = 0;                         // T
  std::string source;                          // what the maps come from, for the page: a file name
  int64_t map_size() const { return static_cast<int64_t>(rows.size() * cols.size()); }  // R * C
};

// A snapshot file's contents as the page shows them (the maps are moved, not copied: a kjv_char
// file holds ~40 MB of them); `source` names the file.
ExplorerMaps explorer_maps_from(AttentionSnapshots&& snapshots, std::string source);

// The final maps under <run_dir>/attention as a single snapshot at `final_step`, or nothing when the
// run has none (report/explorer/final_maps_snapshot.cpp). Throws NpyError for a map that cannot be read.
std::optional<ExplorerMaps> final_maps_snapshot(const std::filesystem::path& run_dir, int64_t final_step, int seq_len);

}  // namespace sinklab
