#pragma once
// The attention maps of a run folder: <dir>/layer{l}_head{h}_{mean,std,sample0}.npy, float32 [T, T]
// each, written from an AttentionMapAccumulator (stats/attention_maps.h) and found again by reports.
// From T = 257 on a map is [side, side]: queries and keys at positions 0, s, 2s, ... with
// s = attention_map_stride(T) (stats/attention_maps.h).
#include <filesystem>

#include "stats/attention_maps.h"

namespace sinklab {

enum class AttentionMapKind { mean, stddev, sample0 };  // files: _mean, _std, _sample0

// "mean", "std" or "sample0".
const char* attention_map_kind_name(AttentionMapKind kind);

// <dir>/layer{l}_head{h}_{kind}.npy
std::filesystem::path attention_map_path(const std::filesystem::path& dir, int layer, int head, AttentionMapKind kind);

// Writes the three .npy files of every (layer, head) into dir (created if missing). Throws
// AttentionMapsError when dir is a symlink or cannot be created, NpyError when a file cannot be written.
void write_attention_maps(const std::filesystem::path& dir, const AttentionMapAccumulator& maps);

}  // namespace sinklab
