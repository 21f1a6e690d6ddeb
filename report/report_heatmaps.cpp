#include "report/report_heatmaps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>

#include "run_files/npy.h"

namespace sinklab {

std::vector<std::pair<int, int>> find_attention_maps(const std::filesystem::path& run_dir, AttentionMapKind kind) {
  std::vector<std::pair<int, int>> found;
  const std::filesystem::path dir = run_dir / "attention";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return found;
  const std::regex pattern(std::string("layer([0-9]+)_head([0-9]+)_") + attention_map_kind_name(kind) + "\\.npy");
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string file = entry.path().filename().string();
    if (std::regex_match(file, m, pattern)) found.emplace_back(std::stoi(m[1].str()), std::stoi(m[2].str()));
  }
  std::sort(found.begin(), found.end());
  return found;
}

namespace {

// "0, 4, 8, ...": the positions a map of this stride keeps.
std::string positions_text(int stride) {
  return "0, " + std::to_string(stride) + ", " + std::to_string(2 * stride) + ", ...";
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

bool rows_sum_to_one(const NpyArray& map, int64_t side) {
  for (int64_t i = 0; i < side; ++i) {
    double sum = 0;
    for (int64_t k = 0; k < side; ++k) sum += map.data[static_cast<size_t>(i * side + k)];
    if (!(std::abs(sum - 1.0) <= kRowSumTolerance)) return false;
  }
  return true;
}

// The colour range of one panel: [0, 1], or [min(0, lowest), highest] of the map itself.
struct PanelRange {
  bool unit = true;
  double lo = 0, hi = 1;
};

PanelRange panel_range(const NpyArray& map, int64_t side, HeatmapScale scale) {
  if (scale == HeatmapScale::unit || (scale == HeatmapScale::rows_decide && rows_sum_to_one(map, side))) return {};
  PanelRange r{false, 0, 0};
  for (float v : map.data)
    if (std::isfinite(v)) {
      r.lo = std::min(r.lo, static_cast<double>(v));
      r.hi = std::max(r.hi, static_cast<double>(v));
    }
  if (!(r.hi > r.lo)) r.hi = r.lo + 1;  // an all-zero map: any range draws it in one colour
  return r;
}

double map_max(const std::filesystem::path& npy) {
  try {
    const NpyArray map = read_npy(npy);
    double m = 0;
    for (float v : map.data)
      if (std::isfinite(v)) m = std::max(m, static_cast<double>(v));
    return m;
  } catch (const NpyError&) {
    return 0;
  }
}

}  // namespace

std::string heatmap_scale_caption(const HeatmapScales& scales) {
  const std::string own = scales.std_maps ? "[0, largest std of the panel]" : "[0, largest value of the panel]";
  if (scales.panel_max == 0) return "Colour scale [0, 1]: every row sums to 1.";
  if (scales.unit == 0)
    return "Colour scale per panel, " + own + " (the bracket in its title)" +
           (scales.std_maps ? std::string(".") : std::string(": the rows do not sum to 1."));
  return "Colour scale [0, 1] on panels whose rows sum to 1; per panel, " + own +
         " (the bracket in its title), on the others, whose rows do not.";
}

double std_to_mean_ratio(const std::filesystem::path& mean_npy, const std::filesystem::path& std_npy) {
  const double mean = map_max(mean_npy);
  return mean > 0 ? map_max(std_npy) / mean : 0.0;
}

bool write_heatmap_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                          int rows, int cols, const std::vector<HeatmapPanel>& panels, int seq_len, std::ostream& log,
                          HeatmapScales* scales) {
  const int stride = seq_len > 0 ? attention_map_stride(seq_len) : 1;
  int64_t side = seq_len > 0 ? attention_map_side(seq_len) : 0;  // 0: the first map's
  std::string data =
      "# " + title + "\n# one [T x T] block per panel (rows = query i, columns = key k" +
      (stride > 1 ? ", positions " + positions_text(stride) + " of T = " + std::to_string(seq_len) : std::string()) +
      "), blocks separated by two blank lines; panel order as in " + name + ".gp\n";
  std::vector<PanelRange> ranges;
  for (const auto& panel : panels) {
    NpyArray map;
    try {
      map = read_npy(panel.npy);
    } catch (const NpyError& e) {
      log << "figure " << name << " skipped: " << e.what() << "\n";
      return false;
    }
    if (side == 0 && map.shape.size() == 2) side = map.shape[0];
    if (map.shape.size() != 2 || map.shape[0] != side || map.shape[1] != side) {
      log << "figure " << name << " skipped: " << panel.npy.string() << " is not the [" << side << ", " << side
          << "] map " << (seq_len > 0 ? "of T = " + std::to_string(seq_len) : std::string("the others are")) << "\n";
      return false;
    }
    ranges.push_back(panel_range(map, side, panel.scale));
    data += "# " + panel.title + "\n";
    char buf[32];
    for (int64_t i = 0; i < side; ++i) {
      for (int64_t k = 0; k < side; ++k) {
        std::snprintf(buf, sizeof buf, k ? " %.6g" : "%.6g",
                      static_cast<double>(map.data[static_cast<size_t>(i * side + k)]));
        data += buf;
      }
      data += "\n";
    }
    data += "\n\n";
  }
  if (panels.empty() || side == 0) return false;

  // Cell c of a kept grid is position c * stride; the image's pixels stay centred on their positions.
  char lo_text[32], lim_text[32];
  std::snprintf(lo_text, sizeof lo_text, "%g", -0.5 * stride);
  std::snprintf(lim_text, sizeof lim_text, "%g", (static_cast<double>(side) - 0.5) * stride);
  const std::string lo = lo_text, lim = lim_text;
  const std::string using_positions =
      stride > 1 ? " using ($1*" + std::to_string(stride) + "):($2*" + std::to_string(stride) + "):3" : std::string();
  std::string body;
  body += "  set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) + " title " +
          gnuplot_quote(title) + "\n";
  body += "  set palette defined (0 \"#440154\", 0.25 \"#3b528b\", 0.5 \"#21908d\", 0.75 \"#5dc963\", 1 \"#fde725\")\n";
  const std::string every = stride > 1 ? " (positions " + positions_text(stride) + ")" : std::string();
  body += "  set xrange [" + lo + ":" + lim + "]\n  set yrange [" + lim + ":" + lo + "]\n";
  body += "  set colorbox\n  set size ratio -1\n  set xlabel \"key" + every + "\"\n  set ylabel \"query" + every +
          "\"\n  set tics out nomirror\n";
  HeatmapScales counted;
  for (size_t p = 0; p < panels.size(); ++p) {
    const PanelRange& r = ranges[p];
    std::string panel_title = panels[p].title;
    if (r.unit) {
      ++counted.unit;
      body += "  set cbrange [0:1]\n";
    } else {
      ++counted.panel_max;
      counted.std_maps = counted.std_maps || panels[p].scale == HeatmapScale::panel_max;
      panel_title += " [" + number_text(r.lo) + ", " + number_text(r.hi) + "]";
      body += "  set cbrange [" + number_text(r.lo) + ":" + number_text(r.hi) + "]\n";
    }
    body += "  set title " + gnuplot_quote(panel_title) + "\n";
    body += "  plot here." + gnuplot_quote(name + ".dat") + " index " + std::to_string(p) + " matrix" +
            using_positions + " with image notitle\n";
  }
  body += "  unset multiplot\n";
  const int width = std::max(360, 300 * cols), height = std::max(330, 280 * rows + 40);
  write_report_file(fig_dir / (name + ".dat"), data);
  write_report_file(fig_dir / (name + ".gp"), gnuplot_script(name, title, width, height, body));
  if (scales) *scales = counted;
  return true;
}

}  // namespace sinklab
