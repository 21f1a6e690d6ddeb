#pragma once
// Attention heatmaps for reports: query rows (y, row 0 at the top) by key columns (x), colour
// scale fixed to [0, 1] as in the paper, laid out as a grid of panels (layer x head, or several
// variants side by side). Maps come from a run's attention/layer{l}_head{h}_{kind}.npy files.
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "report/gnuplot_script.h"
#include "run_files/attention_map_files.h"

namespace sinklab {

// (layer, head) pairs that have a <kind> map in <run_dir>/attention, sorted.
std::vector<std::pair<int, int>> find_attention_maps(const std::filesystem::path& run_dir, AttentionMapKind kind);

struct HeatmapPanel {
  std::string title;
  std::filesystem::path npy;  // a [T, T] float32 map (or the grid of a longer one: stats/attention_maps.h)
};

// Writes <fig_dir>/<name>.dat (one matrix block per panel) and <name>.gp for a rows x cols grid
// filled row by row. seq_len: the runs' T; the axes show positions, so a map that kept every
// attention_map_stride(T)-th one is drawn over 0 .. T. seq_len 0 (a run whose summary is unreadable):
// the maps are drawn cell by cell, square and all of the first one's size. Returns false (and says why
// on log) when a map cannot be read or has another shape; then no script is written.
bool write_heatmap_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                          int rows, int cols, const std::vector<HeatmapPanel>& panels, int seq_len, std::ostream& log);

}  // namespace sinklab
