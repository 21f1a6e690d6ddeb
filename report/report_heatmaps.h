#pragma once
// Attention heatmaps for reports: query rows (y, row 0 at the top) by key columns (x), laid out as a
// grid of panels (a layer's heads, or several variants side by side), each at a legible size.
// Maps come from a run's attention/layer{l}_head{h}_{kind}.npy files.
//
// Colour scale, per panel: [0, 1] as in the paper where the map's rows are distributions (each sums to
// 1), else [0, largest value of the panel], written into the panel's title, so a relu head whose
// largest weight is 0.06 is not drawn black on black.
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

enum class HeatmapScale {
  unit,         // [0, 1] whatever the map holds
  rows_decide,  // [0, 1] when every row sums to 1 (within kRowSumTolerance), else [0, panel max]
  panel_max,    // [0, panel max]: a std map, whose rows sum to nothing in particular
};

// |row sum - 1| up to this counts as a distribution row (float32 sums of T <= 256 terms).
inline constexpr double kRowSumTolerance = 1e-3;

struct HeatmapPanel {
  std::string title;
  std::filesystem::path npy;  // a [T, T] float32 map (or the grid of a longer one: stats/attention_maps.h)
  HeatmapScale scale = HeatmapScale::unit;
};

// How many panels of a written figure got which colour scale, for its caption.
struct HeatmapScales {
  int unit = 0;        // [0, 1]
  int panel_max = 0;   // [0, max of the panel]
  bool std_maps = false;  // some panel_max panel was asked for as such (not decided from its rows)
};

// The caption sentence for a figure's colour scales, e.g. "Colour scale [0, 1]: every row sums to 1."
std::string heatmap_scale_caption(const HeatmapScales& scales);

// Panels per row of the report's heatmap figures: at this many a figure shown at page width keeps
// each panel ~250 px wide; more panels wrap onto further rows.
inline constexpr int kMaxHeatmapColumns = 4;

// Writes <fig_dir>/<name>.dat (one matrix block per panel) and <name>.gp for a rows x cols grid
// filled row by row, each panel 300 x 280 px. seq_len: the runs' T; the axes show positions, so a map
// that kept every attention_map_stride(T)-th one is drawn over 0 .. T. seq_len 0 (a run whose summary
// is unreadable): the maps are drawn cell by cell, square and all of the first one's size. Returns
// false (and says why on log) when a map cannot be read or has another shape; then no script is
// written. scales, when given, receives the panels' colour scales.
bool write_heatmap_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                          int rows, int cols, const std::vector<HeatmapPanel>& panels, int seq_len, std::ostream& log,
                          HeatmapScales* scales = nullptr);

// A std map is drawn only when its largest value reaches this fraction of its mean map's largest:
// below that the evaluation inputs all get (nearly) the same attention and the map is black.
inline constexpr double kStdMapShownFrom = 0.05;

// Largest value of the std map over largest value of the mean map (0 when either cannot be read or
// the mean map is all 0).
double std_to_mean_ratio(const std::filesystem::path& mean_npy, const std::filesystem::path& std_npy);

}  // namespace sinklab
