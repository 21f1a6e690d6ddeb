// The final attention maps (attention/*.npy) as a one-step snapshot, for runs without a snapshot file.
#include <algorithm>

#include "report/explorer/explorer_maps.h"
#include "report/report_heatmaps.h"
#include "run_files/npy.h"

namespace sinklab {

std::optional<ExplorerMaps> final_maps_snapshot(const std::filesystem::path& run_dir, int64_t final_step, int seq_len) {
  const auto means = find_attention_maps(run_dir, AttentionMapKind::mean);
  if (means.empty() || seq_len <= 0) return std::nullopt;
  ExplorerMaps s;
  s.source = "attention/*.npy (final maps)";
  s.steps = {final_step};
  s.seq_len = seq_len;
  for (const auto& [l, h] : means) {
    s.layers = std::max<int64_t>(s.layers, l + 1);
    s.heads = std::max<int64_t>(s.heads, h + 1);
  }
  const int stride = attention_map_stride(seq_len), side = attention_map_side(seq_len);
  for (int i = 0; i < side; ++i) s.rows.push_back(int64_t{i} * stride);
  s.cols = s.rows;
  const auto cells = static_cast<size_t>(side) * static_cast<size_t>(side);
  s.mean.assign(static_cast<size_t>(s.layers * s.heads) * cells, 0.0f);
  const bool examples = find_attention_maps(run_dir, AttentionMapKind::sample0).size() == means.size();
  if (examples) s.example.assign(s.mean.size(), 0.0f);
  const auto dir = run_dir / "attention";
  // A head without a map stays zero: the grid keeps its place.
  for (const auto& [l, h] : means) {
    const size_t offset = static_cast<size_t>(l * s.heads + h) * cells;
    const auto load = [&](AttentionMapKind kind, std::vector<float>& into) {
      const NpyArray map = read_npy(attention_map_path(dir, l, h, kind));
      if (map.data.size() != cells)
        throw NpyError("npy file " + attention_map_path(dir, l, h, kind).string() + ": holds " +
                       std::to_string(map.data.size()) + " values, expected " + std::to_string(side) + " x " +
                       std::to_string(side) + " for seq_len " + std::to_string(seq_len));
      std::copy(map.data.begin(), map.data.end(), into.begin() + static_cast<std::ptrdiff_t>(offset));
    };
    load(AttentionMapKind::mean, s.mean);
    if (examples) load(AttentionMapKind::sample0, s.example);
  }
  return s;
}

}  // namespace sinklab
