#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

#include "report/bos_band_figure.h"
#include "report/gnuplot_runner.h"
#include "report/onset_distribution.h"
#include "run_files/output_path.h"
#include "run_files/quarantine.h"
#include "report/report_heatmaps.h"
#include "report/explorer/explorer_page.h"
#include "report/report_html.h"
#include "report/report_folder_lock.h"
#include "report/report_line_plots.h"
#include "report/report_summary_tables.h"
#include "report/zoo_figures.h"
#include "report/zoo_table.h"

namespace sinklab {
namespace {

std::optional<std::vector<MetricsRecord>> load_metrics(const ReportRun& run, std::ostream& log) {
  const auto path = run.dir / "metrics.jsonl";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    return read_metrics(path);
  } catch (const RunFileError& e) {
    log << "run " << run.id << ": " << e.what() << " (its loss and BOS-mass plots are skipped)\n";
    return std::nullopt;
  }
}

// The T a run's maps were kept at; 0 (draw them cell by cell) when its summary is unreadable.
int map_seq_len(const ReportRun& run) { return run.ok() ? run.summary->seq_len : 0; }

// What a run's task measures: its summary's word (TaskMeasures), completed from its metrics log for a
// run whose summary has no numbers (diverged): token tasks log accuracy, tasks with no-op rows the BOS
// mass on them.
TaskMeasures measures_with_metrics(const ReportRun& run, const std::vector<MetricsRecord>& metrics) {
  TaskMeasures m = measures_of(run);
  if (run.usable()) return m;
  for (const auto& r : metrics) {
    if (r.accuracy) m.tokens = true;
    for (const auto& h : r.heads)
      if (!std::isnan(h.bos_mass_nontrigger_mean)) m.no_op_rows = true;
  }
  m.regression = !m.tokens;
  m.all_rows = !m.no_op_rows;
  m.trigger_row = run.ok() && run.summary->eval_trigger >= 0;
  m.other_no_op_rows = m.no_op_rows && !m.trigger_row;
  return m;
}

std::string loss_caption(LossKind kind) {
  return kind == LossKind::mse
             ? "Training loss (MSE) per logged step (log scale); points: evaluation MSE where it ran."
             : "Training loss (next-token cross-entropy, nats on the left axis, bits on the right) per "
               "logged step; points: evaluation loss where it ran.";
}

// The first logged step whose loss or gradient norm is non-finite; the summary's step count when the
// log stops before one (the check after the step that diverged ends the run before its line).
int64_t diverged_step(const std::vector<MetricsRecord>& metrics, int64_t summary_steps) {
  for (const auto& m : metrics)
    if (!std::isfinite(m.loss) || !std::isfinite(m.grad_norm)) return m.step;
  return summary_steps;
}

// Mean and sample maps are distributions for most normalizers (their rows decide the scale); a std map
// is scaled to itself.
HeatmapScale scale_of(AttentionMapKind kind) {
  return kind == AttentionMapKind::stddev ? HeatmapScale::panel_max : HeatmapScale::rows_decide;
}

// "seed 3" when every member is the same seed, else "softmax seed 0, relu seed 2".
std::string seeds_text(const std::vector<const ReportRun*>& members) {
  bool same = true;
  for (const auto* r : members) same = same && r->seed == members.front()->seed;
  if (same) return "seed " + std::to_string(members.front()->seed);
  std::string out;
  for (const auto* r : members) out += (out.empty() ? "" : ", ") + r->variant + " seed " + std::to_string(r->seed);
  return out;
}

// The run of `variant` whose maps and BOS curve are drawn: a usable run of the chosen seed, else of its
// lowest seed, that passes `has`; nullptr when there is none.
template <typename Has>
const ReportRun* chosen_run(const ReportRuns& runs, const std::string& variant, std::optional<uint64_t> seed, Has has) {
  const ReportRun* best = nullptr;
  for (const auto& r : runs.runs)
    if (r.variant == variant && r.usable() && (!seed || r.seed == *seed) && (!best || r.seed < best->seed) && has(r))
      best = &r;
  return best;
}

bool has_maps(const ReportRun& r) { return !find_attention_maps(r.dir, AttentionMapKind::mean).empty(); }

// --seed N must name a seed some run has: a typo would otherwise draw no maps at all, silently.
void check_seed_present(const ReportRuns& runs, std::optional<uint64_t> seed, const std::filesystem::path& dir) {
  if (!seed) return;
  std::string present;
  for (const auto& r : runs.runs) {
    if (r.seed == *seed) return;
    const std::string text = std::to_string(r.seed);
    if ((", " + present + ", ").find(", " + text + ", ") == std::string::npos)
      present += (present.empty() ? "" : ", ") + text;
  }
  throw ReportError("--seed " + std::to_string(*seed) + ": no run in " + dir.string() +
                    " has this seed (seeds there: " + (present.empty() ? std::string("none") : present) + ")");
}

std::string percent_text(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g%%", 100 * ratio);
  return buf;
}

class ReportBuilder {
 public:
  ReportBuilder(const std::filesystem::path& dir, const ReportOptions& options, ReportRuns runs)
      : dir_(dir), out_(report_output_dir(dir, options)), log_(options.log ? *options.log : std::cerr),
        options_(options), runs_(std::move(runs)), variants_(summarize_variants(runs_)) {
    std::error_code ec;  // a link planted in the folder would send the default report elsewhere
    if (options.output_dir.empty() && std::filesystem::is_symlink(out_, ec))
      throw ReportError(
          out_.string() +
          " is a symbolic link; the default report goes only into a real folder (remove the link, or give --out)");
    check_output_path(out_, OutputKind::folder, "report: output folder");
    for (const char* folder : {"figures", "explorer-maps", "explorer-runs"})  // gnuplot and the explorer write in these
      check_output_path(out_ / folder, OutputKind::folder, "report: output folder", out_);
    std::filesystem::create_directories(out_ / "figures", ec);
    if (ec) throw ReportError((out_ / "figures").string() + ": cannot create: " + ec.message());
    try {  // another report into the same folder writes first (report/report_folder_lock.h)
      lock_ = std::make_unique<ReportFolderLock>(out_, log_);
    } catch (const FileWriteError& e) {
      throw ReportError(e.what());
    }
    for (const auto& r : runs_.runs)
      if (!r.ok()) log_ << "run " << r.id << " failed: " << r.error << "\n";
      else if (r.diverged()) log_ << "run " << r.id << " diverged: " << r.summary->non_finite << "\n";
  }

  // A warning at the top of index.html, also listed in summary.md.
  void warn(std::string text) { extra_warnings_.push_back(std::move(text)); }

  void add_figure(bool written, const std::string& name, const std::string& caption) {
    if (written) figures_.push_back({name, caption});
  }
  // A table after the per-head one (summary.md and index.html); one without rows is left out.
  void add_table(Table table) {
    if (!table.rows.empty()) trailing_tables_.push_back(std::move(table));
  }
  std::filesystem::path fig_dir() const { return out_ / "figures"; }
  std::ostream& log() { return log_; }
  const ReportRuns& runs() const { return runs_; }

  // One figure per layer and map kind: the members' heads as panels, a member's heads in a row (one
  // head per member: the members side by side), wrapped at kMaxHeatmapColumns. A layer's std figure
  // is drawn only when some head's std map says something (kStdMapShownFrom); otherwise the mean
  // figure's caption says so. stem: figure names are <stem>[_L<l>]_<kind>.
  void layer_heatmaps(const std::string& stem, const std::string& shape_text, int layers, int heads, int seq_len,
                      const std::vector<const ReportRun*>& members, const std::vector<AttentionMapKind>& kinds) {
    const std::string seeds = seeds_text(members);
    const bool variant_titles = members.size() > 1;
    for (int l = 0; l < layers; ++l) {
      double std_ratio = 0;
      std::string std_where;
      for (const auto* r : members)
        for (int h = 0; h < heads; ++h) {
          const auto att = r->dir / "attention";
          const double ratio = std_to_mean_ratio(attention_map_path(att, l, h, AttentionMapKind::mean),
                                                 attention_map_path(att, l, h, AttentionMapKind::stddev));
          if (ratio >= std_ratio) {
            std_ratio = ratio;
            std_where = (variant_titles ? r->variant + " " : std::string()) + head_label(l, h);
          }
        }
      const bool draw_std = std_ratio >= kStdMapShownFrom;
      for (const auto kind : kinds) {
        if (kind == AttentionMapKind::stddev && !draw_std) continue;
        std::vector<HeatmapPanel> panels;
        for (const auto* r : members)
          for (int h = 0; h < heads; ++h)
            panels.push_back({!variant_titles      ? head_label(l, h)
                              : layers * heads > 1 ? r->variant + " " + head_label(l, h)
                                                   : r->variant,
                              attention_map_path(r->dir / "attention", l, h, kind), scale_of(kind)});
        const int count = static_cast<int>(panels.size());
        const int cols = std::min(kMaxHeatmapColumns, heads == 1 ? count : heads);
        const int rows = (count + cols - 1) / cols;
        const std::string layer_text = layers > 1 ? ", layer " + std::to_string(l) : std::string();
        const std::string kind_name = attention_map_kind_name(kind);
        const std::string name = stem + (layers > 1 ? "_L" + std::to_string(l) : std::string()) + "_" + kind_name;
        const std::string what = kind == AttentionMapKind::mean      ? "Mean attention over the evaluation inputs"
                                 : kind == AttentionMapKind::stddev ? "Std of attention over the evaluation inputs"
                                                                     : "Attention on one evaluation input";
        HeatmapScales scales;
        const bool written =
            write_heatmap_figure(fig_dir(), name, what + ", " + shape_text + layer_text + " (" + seeds + ")", rows,
                                 cols, panels, seq_len, log_, &scales);
        std::string caption = what + layer_text + ", " + seeds + " (query rows x key columns); one panel per " +
                              (variant_titles ? std::string("variant and head") : std::string("head")) + ". " +
                              heatmap_scale_caption(scales);
        if (kind == AttentionMapKind::mean && !draw_std &&
            std::count(kinds.begin(), kinds.end(), AttentionMapKind::stddev))
          caption += " Std maps not drawn: in every head the largest std over the evaluation inputs is below " +
                     percent_text(kStdMapShownFrom) + " of the mean map's largest value (at most " +
                     percent_text(std_ratio) + (std_where.empty() ? std::string() : ", " + std_where) + ").";
        add_figure(written, name, caption);
      }
    }
  }

  // `leading` tables (the zoo comparison) come before the per-variant and per-head ones.
  void finish(const std::string& title, std::vector<std::string> facts, const std::vector<Table>& leading = {}) {
    const std::vector<Table> variants = variant_tables(runs_, variants_);
    const Table heads = head_table(variants_);
    const Table failed = failed_runs_table(runs_);
    // The explorer first: the tables of index.html link to its pages.
    write_explorer(runs_, out_, log_);
    write_report_file(out_ / "summary.csv", run_table(runs_).to_csv());
    std::string md = "# " + title + "\n\n";
    for (const auto& w : extra_warnings_) md += "> " + w + "\n\n";
    for (const auto& t : leading) md += t.to_markdown() + "\n";
    for (const auto& t : variants) md += t.to_markdown() + "\n";
    md += heads.to_markdown();
    for (const auto& t : trailing_tables_) md += "\n" + t.to_markdown();
    if (!failed.rows.empty()) {
      md += '\n';
      md += failed.to_markdown();
    }
    if (!figures_.empty()) {  // the same figures index.html shows, by relative path
      md += "\n### Figures\n\n";
      for (const auto& f : figures_) md += "- [" + f.name + "](figures/" + f.name + ".png): " + f.caption + "\n";
    }
    write_report_file(out_ / "summary.md", md);

    HtmlPage page;
    page.title = title;
    page.facts = std::move(facts);
    page.warnings = extra_warnings_;
    page.tables = leading;
    page.tables.insert(page.tables.end(), variants.begin(), variants.end());
    page.tables.push_back(heads);
    page.tables.insert(page.tables.end(), trailing_tables_.begin(), trailing_tables_.end());
    if (!failed.rows.empty()) {
      page.tables.push_back(failed);
      page.warnings.push_back(std::to_string(failed.rows.size()) + " run(s) failed; see the table \"Failed runs\".");
    }
    const auto diverged =
        std::count_if(runs_.runs.begin(), runs_.runs.end(), [](const ReportRun& r) { return r.diverged(); });
    if (diverged > 0)
      page.warnings.push_back(std::to_string(diverged) +
                              " run(s) diverged (loss, gradients or parameters went non-finite): "
                              "counted per variant, left out of every mean, interval, per-head table and figure; "
                              "summary.csv says what went non-finite.");
    if (options_.render) {
      GnuplotRunner runner(options_.gnuplot, log_);
      for (const auto& f : figures_) runner.render(fig_dir() / (f.name + ".gp"));
      if (!runner.available())
        page.warnings.push_back("Figures are not rendered: gnuplot was not found. Render them with `gnuplot " +
                                (fig_dir() / "*.gp").string() + "` and reload this page.");
      else if (runner.failed() > 0)
        page.warnings.push_back(std::to_string(runner.failed()) + " figure(s) failed to render; see figures/*.log.");
    } else if (!figures_.empty()) {
      page.warnings.push_back("Figures were not rendered (render disabled); run `gnuplot " +
                              (fig_dir() / "*.gp").string() + "`.");
    }
    page.figures = figures_;
    page.explorer = kExplorerPage;
    for (Table& t : page.tables) link_rows_to_explorer(t, runs_);
    write_report_file(out_ / "index.html", render_html(page));
  }

  const std::vector<VariantSummary>& variants() const { return variants_; }

 private:
  std::filesystem::path dir_, out_;
  std::ostream& log_;
  ReportOptions options_;
  ReportRuns runs_;
  std::vector<VariantSummary> variants_;
  std::vector<Table> trailing_tables_;
  std::vector<Figure> figures_;
  std::vector<std::string> extra_warnings_;
  std::unique_ptr<ReportFolderLock> lock_;  // held until the report is written
};

}  // namespace

std::filesystem::path report_output_dir(const std::filesystem::path& dir, const ReportOptions& options) {
  return options.output_dir.empty() ? dir / "report" : options.output_dir;
}

void write_run_report(const std::filesystem::path& run_dir, ReportOptions options) {
  if (detect_report_dir(run_dir) != ReportDirKind::run)
    throw ReportError(run_dir.string() + ": is a sweep directory (has sweep.json), not a run directory");
  ReportRuns loaded = load_run_dir(run_dir);
  check_seed_present(loaded, options.seed, run_dir);
  ReportBuilder b(run_dir, options, std::move(loaded));
  const ReportRun& run = b.runs().runs.front();

  const auto means = find_attention_maps(run.dir, AttentionMapKind::mean);
  if (means.size() == 1) {  // the paper's single-layer figure: mean and (when it says something) std side by side
    const auto [l, h] = means.front();
    const auto att = run.dir / "attention";
    const auto mean = attention_map_path(att, l, h, AttentionMapKind::mean),
               std_map = attention_map_path(att, l, h, AttentionMapKind::stddev);
    std::vector<HeatmapPanel> panels = {{"mean", mean, HeatmapScale::rows_decide}};
    const double std_ratio =
        find_attention_maps(run.dir, AttentionMapKind::stddev).empty() ? 0.0 : std_to_mean_ratio(mean, std_map);
    if (std_ratio >= kStdMapShownFrom) panels.push_back({"std", std_map, HeatmapScale::panel_max});
    HeatmapScales scales;
    const bool written =
        write_heatmap_figure(b.fig_dir(), "attention",
                             run.variant + ": attention over evaluation inputs (seed " + std::to_string(run.seed) + ")",
                             1, static_cast<int>(panels.size()), panels, map_seq_len(run), b.log(), &scales);
    std::string caption = "Attention (query rows x key columns), mean" +
                          std::string(panels.size() > 1 ? " and std" : "") + " over the evaluation inputs, seed " +
                          std::to_string(run.seed) + ". " + heatmap_scale_caption(scales);
    if (panels.size() == 1)
      caption += " Std map not drawn: its largest value is " + percent_text(std_ratio) +
                 " of the mean map's largest (drawn from " + percent_text(kStdMapShownFrom) + ").";
    b.add_figure(written, "attention", caption);
  } else if (!means.empty()) {
    int layers = 0, heads = 0;
    for (const auto& [l, h] : means) {
      layers = std::max(layers, l + 1);
      heads = std::max(heads, h + 1);
    }
    b.layer_heatmaps("attention", run.variant, layers, heads, map_seq_len(run), {&run},
                     {AttentionMapKind::mean, AttentionMapKind::stddev, AttentionMapKind::sample0});
  }
  if (const auto metrics = load_metrics(run, b.log())) {
    const TaskMeasures measures = measures_with_metrics(run, *metrics);
    const LossKind kind = loss_kind_of(measures);
    LossSeries loss{"train loss", 1, *metrics};
    std::string caption = loss_caption(kind);
    if (run.diverged()) {
      loss.diverged_step = diverged_step(*metrics, run.summary->steps);
      caption += " The run diverged at step " + std::to_string(loss.diverged_step) + " (" + run.summary->non_finite +
                 "): the dashed red line; the plot cannot show the non-finite values after it.";
    }
    b.add_figure(write_loss_figure(b.fig_dir(), "loss_vs_step",
                                   run.variant + (run.diverged() ? ": loss (diverged)" : ": loss"), {loss}, true, kind),
                 "loss_vs_step", caption);
    const BosRows rows = bos_rows_of(measures);
    b.add_figure(
        write_bos_step_figure(b.fig_dir(), "bos_vs_step", run.variant + ": BOS mass on " + rows.name, *metrics, rows),
        "bos_vs_step", "BOS mass on " + rows.name + " of the step's training batch, one line per layer/head.");
  }
  std::vector<std::string> facts = {"Run directory: " + run_dir.string()};
  if (run.diverged())
    facts.push_back("diverged: " + run.summary->non_finite + " (stop_reason non_finite); no statistics");
  else if (run.ok())
    facts.push_back("normalizer " + run.summary->normalizer + ", " + std::to_string(run.summary->layers) +
                    " layer(s) x " + std::to_string(run.summary->heads_per_layer) + " head(s), seed " +
                    std::to_string(run.seed) + ", " + std::to_string(run.summary->steps) +
                    " steps, stop: " + run.summary->stop_reason + ", git " + run.summary->git_revision);
  b.finish("Run " + run.id, facts);
}

namespace {

void warn_about_quarantined_files(ReportBuilder& b, const std::filesystem::path& sweep_dir) {
  const auto moved = quarantined_files(sweep_dir);
  if (moved.empty()) return;
  std::string names;
  for (const auto& f : moved) names += (names.empty() ? "" : ", ") + std::filesystem::relative(f, sweep_dir).string();
  b.warn(std::to_string(moved.size()) + " damaged run file(s) were moved aside and their runs started over: " + names +
         ".");
}

// A zoo comparison (variants with sink classes): its table, which leads the report, and its side-by-side
// figures, which replace the per-shape attention figures.
std::vector<Table> add_zoo_section(ReportBuilder& b, const ReportRuns& runs) {
  const std::vector<ZooVariant> zoo_variants = collect_zoo_variants(runs);
  for (const auto& f : write_zoo_heatmap_figures(b.fig_dir(), runs, zoo_variants, b.log()))
    b.add_figure(true, f.name, f.caption);
  b.add_figure(write_zoo_bos_step_figure(b.fig_dir(), "zoo_bos_vs_step", runs, zoo_variants, b.log()),
               "zoo_bos_vs_step",
               "BOS mass on no-op rows of the training batches vs step, mean over heads, one line per variant (seed 0, "
               "else its first seed that finished); dash pattern per sink class.");
  return {zoo_table(runs, zoo_variants)};
}

using ShapeKey = std::tuple<int, int, int>;  // layers, heads per layer, seq_len

// One representative run per variant (chosen_run: the chosen seed, else its lowest, with attention maps),
// grouped by model shape in order of first appearance, so a softmax variant sits next to the relu
// variant of its shape.
std::vector<std::pair<ShapeKey, std::vector<const ReportRun*>>> representatives_by_shape(ReportBuilder& b,
                                                                                         std::optional<uint64_t> seed) {
  const ReportRuns& runs = b.runs();
  std::vector<std::pair<ShapeKey, std::vector<const ReportRun*>>> groups;
  for (const auto& variant : runs.variants) {
    const ReportRun* r = chosen_run(runs, variant, seed, has_maps);
    if (!r) {
      if (seed)
        b.log() << "variant " << variant << " has no finished run of seed " << *seed
                << " with attention maps: its maps are not drawn\n";
      continue;
    }
    const ShapeKey key{r->summary->layers, r->summary->heads_per_layer, r->summary->seq_len};
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(r);
  }
  return groups;
}

// Mean and std attention of one shape's representatives, a figure per layer (ReportBuilder::layer_heatmaps).
void add_shape_figures(ReportBuilder& b, const ShapeKey& shape_key, const std::vector<const ReportRun*>& members) {
  const auto [layers, heads, seq_len] = shape_key;
  const std::string shape = std::to_string(layers) + "x" + std::to_string(heads) + "_T" + std::to_string(seq_len);
  b.layer_heatmaps("attention_" + shape, shape, layers, heads, seq_len, members,
                   {AttentionMapKind::mean, AttentionMapKind::stddev});
}

// The loss of every seed, one colour per variant; the BOS-vs-step figure of each variant's chosen seed
// (chosen_run) with a metrics log; the evaluation BOS dots.
// A sweep that mixes regression and token tasks gets one loss figure per kind of loss.
void add_training_figures(ReportBuilder& b, const ReportRuns& runs, std::optional<uint64_t> seed) {
  std::vector<LossSeries> mse_loss, token_loss;
  for (size_t v = 0; v < runs.variants.size(); ++v) {
    const ReportRun* shown = chosen_run(runs, runs.variants[v], seed, [](const ReportRun& r) {
      std::error_code ec;
      return std::filesystem::exists(r.dir / "metrics.jsonl", ec);
    });
    bool first = true;
    std::vector<SeedMetrics> seeds;  // for the band over seeds
    std::optional<BosRows> band_rows;
    for (const auto& r : runs.runs) {
      if (r.variant != runs.variants[v] || !r.usable()) continue;
      const auto metrics = load_metrics(r, b.log());
      if (!metrics) continue;
      const TaskMeasures measures = measures_of(r);
      seeds.push_back({r.seed, *metrics});
      if (!band_rows) band_rows = bos_rows_of(measures);
      (measures.tokens ? token_loss : mse_loss).push_back({first ? r.variant : "", static_cast<int>(v) + 1, *metrics});
      if (&r == shown) {
        const std::string name = "bos_vs_step_" + file_stem(r.variant);
        const BosRows rows = bos_rows_of(measures);
        b.add_figure(
            write_bos_step_figure(b.fig_dir(), name,
                                  r.variant + " (seed " + std::to_string(r.seed) + "): BOS mass on " + rows.name,
                                  *metrics, rows),
            name,
            "BOS mass on " + rows.name + " during training, " + r.variant + " seed " + std::to_string(r.seed) +
                ", one line per layer/head.");
      }
      first = false;
    }
    if (seeds.size() > 1) {  // one seed has no band: its BOS-vs-step figure above shows it
      const std::string name = "bos_band_" + file_stem(runs.variants[v]);
      b.add_figure(write_bos_band_figure(b.fig_dir(), name,
                                         runs.variants[v] + ": BOS mass on " + band_rows->name + " over " +
                                             std::to_string(seeds.size()) + " seeds",
                                         seeds, *band_rows),
                   name,
                   "BOS mass on " + band_rows->name + " during training, " + runs.variants[v] +
                       ": per layer/head the mean over " + std::to_string(seeds.size()) +
                       " seeds (line) and the band from the smallest to the largest seed.");
    }
  }
  const bool both = !mse_loss.empty() && !token_loss.empty();
  b.add_figure(write_loss_figure(b.fig_dir(), both ? "loss_vs_step_mse" : "loss_vs_step",
                                 "training loss (MSE) per variant", mse_loss, false, LossKind::mse),
               both ? "loss_vs_step_mse" : "loss_vs_step",
               "Training loss (MSE) vs step (log scale), every seed; one colour per variant.");
  b.add_figure(
      write_loss_figure(b.fig_dir(), both ? "loss_vs_step_cross_entropy" : "loss_vs_step",
                        "training loss (cross-entropy) per variant", token_loss, false, LossKind::cross_entropy),
      both ? "loss_vs_step_cross_entropy" : "loss_vs_step",
      "Training loss (next-token cross-entropy; nats left, bits right) vs step, every seed; one colour per variant.");
  const TaskMeasures measures = measures_of(runs);
  const std::string rows = bos_axis_label(measures);
  b.add_figure(write_bos_dot_figure(b.fig_dir(), "bos_dots", rows + " (evaluation)", runs, b.variants()), "bos_dots",
               "Evaluation " + rows +
                   " per variant: one dot per seed and head (heads L0H0, L0H1, ... left to right), mean and 95% "
                   "bootstrap interval.");
  b.add_figure(
      write_onset_figure(b.fig_dir(), "onset_steps", "sink onset steps per variant", runs), "onset_steps",
      "Sink onset steps per variant: one dot per seed and head, open: BOS mass on the no-op rows stays >= 0.5 from "
      "that step, filled: >= 0.9; the table \"Sink onset steps\" counts the pairs without an onset.");
  b.add_table(onset_table(runs));
}

std::vector<std::string> sweep_facts(const std::filesystem::path& sweep_dir, const ReportRuns& runs) {
  int failed = 0, diverged = 0;
  for (const auto& r : runs.runs) {
    failed += r.ok() ? 0 : 1;
    diverged += r.diverged() ? 1 : 0;
  }
  return {"Sweep directory: " + sweep_dir.string(),
          std::to_string(runs.runs.size()) + " runs in " + std::to_string(runs.variants.size()) + " variants; " +
              std::to_string(failed) + " failed, " + std::to_string(diverged) + " diverged."};
}

}  // namespace

void write_sweep_report(const std::filesystem::path& sweep_dir, ReportOptions options) {
  if (detect_report_dir(sweep_dir) != ReportDirKind::sweep)
    throw ReportError(sweep_dir.string() + ": not a sweep directory (no sweep.json)");
  ReportRuns loaded = load_sweep_dir(sweep_dir);
  check_seed_present(loaded, options.seed, sweep_dir);
  ReportBuilder b(sweep_dir, options, std::move(loaded));
  const ReportRuns& runs = b.runs();
  warn_about_quarantined_files(b, sweep_dir);
  const bool zoo = has_sink_classes(runs);
  const std::vector<Table> leading = zoo ? add_zoo_section(b, runs) : std::vector<Table>{};
  if (!zoo)
    for (const auto& [shape, members] : representatives_by_shape(b, options.seed)) add_shape_figures(b, shape, members);
  add_training_figures(b, runs, options.seed);
  b.finish(runs.title, sweep_facts(sweep_dir, runs), leading);
}

void write_report(const std::filesystem::path& dir, ReportOptions options) {
  if (detect_report_dir(dir) == ReportDirKind::sweep) write_sweep_report(dir, std::move(options));
  else write_run_report(dir, std::move(options));
}

std::string variant_table_text(const ReportRuns& runs) {
  const bool zoo = has_sink_classes(runs);  // its table shows medians and means, no intervals
  std::string out = zoo ? zoo_text_table(collect_zoo_variants(runs)).to_text()
                        : variant_text_table(summarize_variants(runs)).to_text();
  for (const auto& note : zoo ? sink_setting_notes(runs) : setting_notes(runs)) out += note + "\n";
  for (const auto& r : runs.runs)
    if (!r.ok()) out += "FAILED " + r.id + ": " + r.error + "\n";
  return out;
}

std::string variant_table_text(const std::filesystem::path& run_or_sweep_dir) {
  return variant_table_text(load_report_runs(run_or_sweep_dir));
}

}  // namespace sinklab
