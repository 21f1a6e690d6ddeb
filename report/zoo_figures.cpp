#include "report/zoo_figures.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "report/report_heatmaps.h"

namespace sinklab {
namespace {

// At most this many panels per figure row: a 1x1 zoo of 22 variants becomes 3 rows of 8.
constexpr int kMaxPanelsPerRow = 8;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.8g", v);
  return buf;
}

// Ten well-separated colours, cycled over the variants; the dash pattern tells the classes apart.
constexpr std::array<const char*, 10> kLineColours = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// gnuplot dash type per class: S solid, V dashed, Z dotted, C dash-dot, G dash-dot-dot, U long dashes.
std::string dash_of(const std::optional<SinkClass>& c) {
  if (!c) return "1";
  switch (*c) {
    case SinkClass::S: return "1";
    case SinkClass::V: return "2";
    case SinkClass::Z: return "3";
    case SinkClass::C: return "4";
    case SinkClass::G: return "5";
    case SinkClass::U: return "(16,6)";
  }
  return "1";
}

std::string class_suffix(const ZooVariant& v) {
  return v.sink_class ? " (" + sink_class_letter(*v.sink_class) + ")" : "";
}

}  // namespace

const ReportRun* zoo_representative_run(const ReportRuns& runs, const std::string& variant, bool with_maps) {
  const ReportRun* first = nullptr;
  for (const auto& r : runs.runs) {
    if (r.variant != variant || !r.usable()) continue;
    if (with_maps && find_attention_maps(r.dir, AttentionMapKind::mean).empty()) continue;
    if (r.seed == 0) return &r;
    if (!first) first = &r;
  }
  return first;
}

std::vector<Figure> write_zoo_heatmap_figures(const std::filesystem::path& fig_dir, const ReportRuns& runs,
                                              const std::vector<ZooVariant>& variants, std::ostream& log) {
  // Variants by model shape, in zoo order; a figure per shape keeps every panel the same size.
  using Shape = std::tuple<int, int, int>;
  std::vector<Shape> shapes;
  std::map<Shape, std::vector<std::pair<const ZooVariant*, const ReportRun*>>> members;
  for (const auto& v : variants) {
    const ReportRun* run = zoo_representative_run(runs, v.variant, /*with_maps=*/true);
    if (!run) continue;
    const Shape shape{run->summary->layers, run->summary->heads_per_layer, run->summary->seq_len};
    if (!members.count(shape)) shapes.push_back(shape);
    members[shape].push_back({&v, run});
  }
  std::vector<Figure> figures;
  for (const auto& shape : shapes) {
    const auto [layers, heads, seq_len] = shape;
    const auto& list = members[shape];
    const int per_variant = layers * heads;
    const int variants_per_row = std::max(1, kMaxPanelsPerRow / per_variant);
    const int count = static_cast<int>(list.size());
    const int cols = std::min(count, variants_per_row) * per_variant;
    const int rows = (count + variants_per_row - 1) / variants_per_row;
    std::vector<HeatmapPanel> panels;
    std::string seeds_shown;
    for (const auto& [v, run] : list) {
      for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
          panels.push_back({v->variant + class_suffix(*v) + (per_variant > 1 ? " " + head_label(l, h) : ""),
                            attention_map_path(run->dir / "attention", l, h, AttentionMapKind::mean),
                            HeatmapScale::rows_decide});
      if (run->seed != 0)
        seeds_shown += (seeds_shown.empty() ? "" : ", ") + v->variant + " seed " + std::to_string(run->seed);
    }
    const std::string shape_text =
        std::to_string(layers) + "x" + std::to_string(heads) + "_T" + std::to_string(seq_len);
    const std::string name = shapes.size() > 1 ? "zoo_attention_" + shape_text : "zoo_attention";
    const std::string title =
        "mean attention over evaluation inputs, " + shape_text + ", one panel per " +
        (per_variant > 1 ? std::string("head, a variant's heads in a row") : std::string("variant"));
    HeatmapScales scales;
    if (write_heatmap_figure(fig_dir, name, title, rows, cols, panels, seq_len, log, &scales))
      figures.push_back(
          {name,
           "Every variant's attention side by side (query rows x key columns, mean over the evaluation "
           "inputs), seed 0" +
               (seeds_shown.empty() ? std::string() : " (where seed 0 did not finish: " + seeds_shown + ")") +
               "; (class) after the name" +
               (per_variant > 1 ? std::string(", L{layer}H{head}: a variant's heads in a row.") : std::string(".")) +
               " " + heatmap_scale_caption(scales)});
  }
  return figures;
}

bool write_zoo_bos_step_figure(const std::filesystem::path& fig_dir, const std::string& name, const ReportRuns& runs,
                               const std::vector<ZooVariant>& variants, std::ostream& log) {
  std::string data = "# BOS mass on no-op rows vs step, one block per variant (seed 0, else the first usable seed): "
                     "`step mean-over-heads bos_mass_nontrigger_mean`; blocks separated by two blank lines\n";
  std::string plots;
  int block = 0;
  for (const auto& v : variants) {
    const ReportRun* run = zoo_representative_run(runs, v.variant, /*with_maps=*/false);
    if (!run) continue;
    std::vector<MetricsRecord> metrics;
    try {
      metrics = read_metrics(run->dir / "metrics.jsonl");
    } catch (const RunFileError& e) {
      log << "run " << run->id << ": " << e.what() << " (left out of " << name << ")\n";
      continue;
    }
    std::string lines;
    for (const auto& m : metrics) {
      double sum = 0.0;
      int n = 0;
      for (const auto& h : m.heads)
        if (std::isfinite(h.bos_mass_nontrigger_mean)) {
          sum += h.bos_mass_nontrigger_mean;
          ++n;
        }
      if (n > 0) lines += std::to_string(m.step) + " " + num(sum / n) + "\n";
    }
    if (lines.empty()) continue;  // gnuplot cannot plot an empty block
    data += "# " + v.variant + " seed " + std::to_string(run->seed) + "\n" + lines + "\n\n";
    plots += std::string(plots.empty() ? "" : ", \\\n       ") + "here." + gnuplot_quote(name + ".dat") + " index " +
             std::to_string(block) + " using 1:2 with lines lw 1.5 lc rgb \"" +
             kLineColours[static_cast<std::size_t>(block) % kLineColours.size()] + "\" dt " + dash_of(v.sink_class) +
             " title " + gnuplot_quote(v.variant + class_suffix(v));
    ++block;
  }
  if (plots.empty()) return false;
  const std::string title = "BOS mass on no-op rows vs step, mean over heads, one line per variant";
  std::string body = "  set title " + gnuplot_quote(title) + "\n";
  body += "  set xlabel \"step\"\n  set ylabel \"BOS mass on no-op rows\"\n  set yrange [0:1.05]\n";
  body += "  set key outside right top\n  set grid\n  plot " + plots + "\n";
  write_report_file(fig_dir / (name + ".dat"), data);
  write_report_file(fig_dir / (name + ".gp"), gnuplot_script(name, title, 1200, 640, body));
  return true;
}

}  // namespace sinklab
