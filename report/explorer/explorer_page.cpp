#include "report/explorer/explorer_page.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/io/file_write.h"
#include "report/explorer/explorer_maps.h"
#include "run_files/attention_snapshot_file.h"
#include "report/explorer/base64.h"
#include "report/explorer/explorer_assets.h"
#include "report/explorer/token_label_text.h"
#include "report/report_line_plots.h"
#include "report/report_summary_tables.h"
#include "report/zoo_figures.h"
#include "report/zoo_table.h"
#include "run_files/half_float.h"
#include "run_files/npy.h"
#include "run_files/output_path.h"

namespace sinklab {
namespace {

using nlohmann::json;

// One base64 string per step, each the [L, H, R, C] maps of that step (write_map_files puts each in
// its own script, which the page loads when the step is first shown). The values go as float16 when
// every one of them is exactly a float16 (a float16 snapshot file: half the bytes, same numbers),
// else as float32; `dtype` says which ("f2" or "f4").
json steps_base64(const std::vector<float>& maps, size_t steps, std::string& dtype) {
  if (maps.empty()) return nullptr;
  std::vector<uint16_t> halves;
  halves.reserve(maps.size());
  for (const float v : maps) {
    const std::optional<uint16_t> h = exact_half(v);
    if (!h) break;
    halves.push_back(*h);
  }
  const bool half = halves.size() == maps.size();
  dtype = half ? "f2" : "f4";
  const size_t per_step = maps.size() / steps, bytes = half ? sizeof(uint16_t) : sizeof(float);
  const char* data = half ? reinterpret_cast<const char*>(halves.data()) : reinterpret_cast<const char*>(maps.data());
  json out = json::array();
  for (size_t s = 0; s < steps; ++s)
    out.push_back(base64_encode(std::string_view(data + s * per_step * bytes, per_step * bytes)));
  return out;
}

}  // namespace

json explorer_maps_data(const ExplorerMaps& s, bool pooled) {
  json j = {{"source", s.source}, {"steps", s.steps},   {"layers", s.layers}, {"heads", s.heads},
            {"rows", s.rows},     {"cols", s.cols},     {"seq_len", s.seq_len}, {"pooled", pooled}};
  j["roles"] = s.roles.empty() ? json(nullptr) : json(s.roles);
  j["tokens"] = s.tokens.empty() ? json(nullptr) : json(s.tokens);
  json labels = nullptr;
  if (!s.token_labels.empty()) {
    labels = json::array();
    for (const std::string& label : s.token_labels) labels.push_back(token_label_text(label));
  }
  j["token_labels"] = std::move(labels);
  std::string mean_dtype = "f4", example_dtype = "f4";
  j["mean"] = steps_base64(s.mean, s.steps.size(), mean_dtype);
  j["example"] = steps_base64(s.example, s.steps.size(), example_dtype);
  j["dtype"] = {{"mean", mean_dtype}, {"example", example_dtype}};
  return j;
}

namespace {

// A number of the curves, null where it is undefined (NaN: rows that never occurred).
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// Every record gets one entry per head: a step that logged fewer heads (a diverged step logs none)
// has nulls there, so the page's curves simply break.
json curves_json(const std::vector<MetricsRecord>& metrics, const BosRows& rows) {
  json steps = json::array(), bos = json::array(), score = json::array(), virt = json::array(), sink = json::array();
  size_t heads = 0;
  for (const MetricsRecord& r : metrics) heads = std::max(heads, r.heads.size());
  for (const MetricsRecord& r : metrics) {
    steps.push_back(r.step);
    json b = json::array(), sc = json::array(), v = json::array(), k = json::array();
    for (const HeadSinkStats& h : r.heads) {
      b.push_back(number(h.*rows.statistic()));
      sc.push_back(number(h.sink_score));
      v.push_back(number(h.virtual_mass_nontrigger_mean));
      k.push_back(h.sink_head);
    }
    for (size_t i = r.heads.size(); i < heads; ++i) {
      b.push_back(nullptr);
      sc.push_back(nullptr);
      v.push_back(nullptr);
      k.push_back(false);
    }
    bos.push_back(b);
    score.push_back(sc);
    virt.push_back(v);
    sink.push_back(k);
  }
  return {{"steps", steps}, {"bos_mass", bos}, {"sink_score", score}, {"virtual_mass", virt}, {"sink_head", sink},
          {"bos_rows", rows.name}};
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

// A run id as a folder name: anything but letters, digits, '.', '-' and '_' becomes '_'.
std::string folder_name(const std::string& id) {
  std::string out = id;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return out.empty() || out == "." || out == ".." ? "run" : out;
}

void write_page(const std::filesystem::path& dir, const std::string& title, const std::string& assets, const json& data,
                const std::vector<std::string>& extra_assets = {}) {
  std::filesystem::create_directories(dir);
  std::string html = kExplorerHtml;
  for (const std::string& file : extra_assets) {  // scripts before explorer.js, styles after explorer.css
    const bool script = file.ends_with(".js");
    const std::string anchor =
        script ? "<script src=\"@ASSETS@explorer.js\">" : "<link rel=\"stylesheet\" href=\"@ASSETS@explorer.css\">\n";
    const size_t at = html.find(anchor);
    if (at == std::string::npos) throw std::logic_error("report/explorer/explorer.html has no " + anchor);
    if (script) html.insert(at, "<script src=\"@ASSETS@" + file + "\"></script>\n");
    else html.insert(at + anchor.size(), "<link rel=\"stylesheet\" href=\"@ASSETS@" + file + "\">\n");
  }
  html = replace_all(html, "@TITLE@", html_escape(title));
  html = replace_all(html, "@ASSETS@", assets);
  write_file_atomically(dir / "explorer.html", html);
  // "</" is escaped so no string in the data can end a script element when the file is inlined. Bytes
  // that are not UTF-8 (a folder name, say) become U+FFFD instead of failing the report.
  const std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
  write_file_atomically(dir / "explorer-data.js",
                        "window.SINKLAB_EXPLORER = " + replace_all(text, "</", "<\\/") + ";\n");
}

// Moves the base64 maps of a run's data into one script per step and kind,
// <page_dir>/explorer-maps/<kind>-<index>.js, which calls SINKLAB_EXPLORER_STEP(run id, kind, index,
// base64); the data keeps their paths relative to page_dir. A script per step keeps the first paint
// of a long run or a large sweep fast, and needs no fetch from file://.
void write_map_files(json& run, const std::filesystem::path& page_dir) {
  const auto dir = page_dir / "explorer-maps";
  std::filesystem::remove_all(dir);  // a previous report may have had more steps
  if (!run["maps"].is_object()) return;
  std::filesystem::create_directories(dir);
  const std::string id = run["id"].dump();
  for (const char* kind : {"mean", "example"}) {
    json& list = run["maps"][kind];
    if (!list.is_array()) continue;
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string name = std::string(kind) + "-" + std::to_string(i) + ".js";
      write_file_atomically(dir / name, "SINKLAB_EXPLORER_STEP(" + id + ", \"" + kind + "\", " + std::to_string(i) +
                                            ", \"" + list[i].get<std::string>() + "\");\n");
      list[i] = "explorer-maps/" + name;
    }
  }
}

// The same paths as seen from a page `folder` levels up.
void prefix_map_files(json& run, const std::string& folder) {
  if (!run["maps"].is_object()) return;
  for (const char* kind : {"mean", "example"})
    if (run["maps"][kind].is_array())
      for (json& path : run["maps"][kind]) path = folder + "/" + path.get<std::string>();
}

void write_assets(const std::filesystem::path& dir) {
  write_file_atomically(dir / "explorer.js", kExplorerJs);
  write_file_atomically(dir / "explorer.css", kExplorerCss);
}

}  // namespace

void write_explorer_page(const std::filesystem::path& dir, const std::string& title, const json& data,
                         const std::vector<std::string>& extra_assets) {
  write_assets(dir);
  write_page(dir, title, "", data, extra_assets);
}

json explorer_run_data(const ReportRun& run, std::ostream& log) {
  json j = {{"id", run.id}, {"variant", run.variant}, {"seed", run.seed}, {"dir", run.dir.string()}};
  if (run.summary) {
    const RunSummary& s = *run.summary;
    j["normalizer"] = s.normalizer;
    j["layers"] = s.layers;
    j["heads"] = s.heads_per_layer;
    j["seq_len"] = s.seq_len;
    j["steps"] = s.steps;
    json onset50 = json::array(), onset90 = json::array();
    for (const HeadSinkStats& h : s.heads) {
      onset50.push_back(h.sink_onset_step_50 ? json(*h.sink_onset_step_50) : json(nullptr));
      onset90.push_back(h.sink_onset_step_90 ? json(*h.sink_onset_step_90) : json(nullptr));
    }
    j["onset50"] = onset50;
    j["onset90"] = onset90;
  } else {
    j["run_error"] = run.error;
  }

  const auto snapshots = run.dir / kAttentionSnapshotsFile;
  std::optional<ExplorerMaps> maps;
  bool pooled = false;  // the snapshot file pools long rows; the final maps sample every s-th position
  try {
    if (std::filesystem::exists(snapshots)) {
      // A finished run bounds its own file (a forged or bombed archive is refused before inflating).
      const uint64_t bound = run.summary ? snapshot_file_bound(static_cast<int64_t>(run.summary->heads.size()),
                                                               run.summary->steps)
                                         : kMaxNpzBytes;
      maps = explorer_maps_from(read_attention_snapshots(snapshots, bound), kAttentionSnapshotsFile);
      pooled = true;
    }
  } catch (const AttentionSnapshotFileError& e) {
    j["maps_error"] = e.what();
    log << "explorer: " << e.what() << "\n";
  }
  if (!maps && run.summary) {
    try {
      maps = final_maps_snapshot(run.dir, run.summary->steps, run.summary->seq_len);
      if (maps && !j.contains("maps_error"))
        j["maps_note"] = "This run has no " + std::string(kAttentionSnapshotsFile) +
                         ": showing its final attention maps (attention/*.npy) as a single step.";
    } catch (const NpyError& e) {
      log << "explorer: " << e.what() << "\n";
      j["maps_error"] =
          (j.contains("maps_error") ? j["maps_error"].get<std::string>() + "; " : std::string()) + e.what();
    }
  }
  j["maps"] = maps ? explorer_maps_data(*maps, pooled) : json(nullptr);

  const auto metrics_path = run.dir / "metrics.jsonl";
  j["curves"] = nullptr;
  if (std::filesystem::exists(metrics_path)) {
    try {
      json curves = curves_json(read_metrics(metrics_path), bos_rows_of(measures_of(run)));
      const size_t logged = curves["bos_mass"].empty() ? 0 : curves["bos_mass"][0].size();
      const size_t drawn = maps ? static_cast<size_t>(maps->layers * maps->heads) : logged;
      if (logged != drawn && !curves["steps"].empty()) {
        j["curves_error"] = metrics_path.string() + " logs " + std::to_string(logged) +
                            " heads, the attention maps have " + std::to_string(drawn) + ": curves not drawn";
        log << "explorer: " << j["curves_error"].get<std::string>() << "\n";
      } else {
        j["curves"] = std::move(curves);
      }
    } catch (const RunFileError& e) {
      j["curves_error"] = e.what();
      log << "explorer: " << e.what() << "\n";
    }
  }
  return j;
}

std::string explorer_page_of(const ReportRuns& runs, const ReportRun& run) {
  return runs.is_sweep ? "explorer-runs/" + folder_name(run.id) + "/" + kExplorerPage : std::string(kExplorerPage);
}

const ReportRun* explorer_variant_run(const ReportRuns& runs, const std::string& variant) {
  if (const ReportRun* usable = zoo_representative_run(runs, variant, /*with_maps=*/false)) return usable;
  for (const ReportRun& r : runs.runs)
    if (r.variant == variant) return &r;
  return nullptr;
}

void link_rows_to_explorer(Table& table, const ReportRuns& runs) {
  table.row_links.assign(table.rows.size(), "");
  for (size_t i = 0; i < table.rows.size(); ++i) {
    if (table.rows[i].empty()) continue;
    const std::string& first = table.rows[i].front();
    const ReportRun* run = explorer_variant_run(runs, first);
    for (const ReportRun& r : runs.runs)
      if (!run && r.id == first) run = &r;
    if (run) table.row_links[i] = explorer_page_of(runs, *run);
  }
}

namespace {

// A table for the sweep page (rendered as text by explorer.js), its rows linked to run pages.
json table_json(Table table, const ReportRuns& runs) {
  link_rows_to_explorer(table, runs);
  json sections = json::array();
  for (const auto& [at, heading] : table.sections) sections.push_back({{"at", at}, {"text", heading}});
  return {{"title", table.title}, {"header", table.header}, {"rows", table.rows}, {"links", table.row_links},
          {"sections", sections}, {"notes", table.notes}};
}

// What index.html shows first: the zoo table when the sweep names sink classes, else the per-variant
// tables (one per model shape).
json sweep_tables(const ReportRuns& runs) {
  json tables = json::array();
  if (has_sink_classes(runs)) {
    tables.push_back(table_json(zoo_table(runs, collect_zoo_variants(runs)), runs));
  } else {
    for (const Table& t : variant_tables(runs, summarize_variants(runs))) tables.push_back(table_json(t, runs));
  }
  return tables;
}

}  // namespace

std::filesystem::path write_explorer(const std::filesystem::path& dir, const std::filesystem::path& out_dir,
                                     std::ostream& log) {
  return write_explorer(load_report_runs(dir), out_dir, log);
}

std::filesystem::path write_explorer(const ReportRuns& runs, const std::filesystem::path& out_dir, std::ostream& log) {
  write_assets(out_dir);
  if (!runs.is_sweep) {
    const ReportRun& run = runs.runs.front();
    json data = explorer_run_data(run, log);
    write_map_files(data, out_dir);
    write_page(out_dir, "Sink explorer: " + run.id, "", {{"kind", "run"}, {"run", data}});
    return out_dir / kExplorerPage;
  }
  json list = json::array();
  for (const ReportRun& run : runs.runs) {
    json data = explorer_run_data(run, log);
    const std::string page = explorer_page_of(runs, run);
    const std::string folder = std::filesystem::path(page).parent_path().string();
    check_output_path(out_dir / folder / "explorer-maps", OutputKind::folder, "report: output folder", out_dir);
    write_map_files(data, out_dir / folder);
    write_page(out_dir / folder, "Sink explorer: " + run.id, "../../",
               {{"kind", "run"}, {"run", data}, {"sweep_page", "../../explorer.html"}});
    data["page"] = page;
    prefix_map_files(data, folder);
    // The sweep page compares mean maps only; each run's own page has the example input too.
    if (data["maps"].is_object()) data["maps"]["example"] = nullptr;
    list.push_back(std::move(data));
  }
  write_page(out_dir, "Sink explorer: " + runs.title, "",
             {{"kind", "sweep"},
              {"title", runs.title},
              {"variants", runs.variants},
              {"runs", list},
              {"tables", sweep_tables(runs)}});
  return out_dir / kExplorerPage;
}

}  // namespace sinklab
