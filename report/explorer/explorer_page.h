#pragma once
// The sink explorer: an offline page (plain JS + CSS, no network) that steps through a run's attention
// maps over training, head by head, with each head's BOS mass / sink score / virtual mass curves.
// `sinklab report DIR` writes, into the report directory:
//   explorer.html, explorer.js, explorer.css   the page and its code (report/explorer/explorer_assets.h)
//   explorer-data.js                           window.SINKLAB_EXPLORER = {...}: everything but the maps
//   explorer-maps/<mean|example>-<i>.js        step i's maps, base64 float32 [L, H, R, C], loaded when shown
// For a sweep, explorer.html compares one head across variants (seeds as small multiples), shows the
// report's zoo table (or per-variant table) with each variant linked to its run page, and every run
// gets its own page under explorer-runs/<run id>/, linked from the sweep page. The report's index.html
// links the same pages (write_report writes the explorer with the rest of the report).
// A missing or unreadable snapshot file never fails the report: the page says what is wrong.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report_runs.h"
#include "report/report_table.h"

namespace sinklab {

struct ExplorerMaps;

// The page's description of one run's maps: steps, shape, stored rows/columns ("pooled": true when a
// stored position stands for the positions up to the next one, as in the snapshot file; false when it
// is a sampled position, as in the final maps), roles, tokens, "token_labels" (each token's text made
// visible and valid UTF-8, report/explorer/token_label_text.h; null without labels) and per step the
// maps as base64 (float16 when every value is one, else float32; "dtype" says which).
nlohmann::json explorer_maps_data(const ExplorerMaps& maps, bool pooled);

// Everything the page shows of one run (attention maps, curves, onsets), as the data file holds it.
// Problems with the run's files become "maps_error" / "curves_error" text, and a line on log.
nlohmann::json explorer_run_data(const ReportRun& run, std::ostream& log);

inline constexpr const char* kExplorerPage = "explorer.html";

// Writes into dir the page (explorer.html, explorer.js, explorer.css) and explorer-data.js holding
// `data` as window.SINKLAB_EXPLORER; explorer.js draws data.kind. `extra_assets` (files the caller
// writes into dir) are loaded before explorer.js (*.js: a script registering a page kind in
// SINKLAB_EXPLORER_PAGES) or after explorer.css (*.css). Throws std::runtime_error when a file cannot be written.
void write_explorer_page(const std::filesystem::path& dir, const std::string& title, const nlohmann::json& data,
                         const std::vector<std::string>& extra_assets = {});

// Where run's page is, relative to the report folder: explorer.html in a run's report,
// explorer-runs/<run id as a folder name>/explorer.html in a sweep's.
std::string explorer_page_of(const ReportRuns& runs, const ReportRun& run);
// The run a variant's link opens: seed 0 when it finished without diverging, else its first such run
// (report/zoo_figures.h), else its first run; null when no run has that variant.
const ReportRun* explorer_variant_run(const ReportRuns& runs, const std::string& variant);
// Links (Table::row_links) each row whose first cell names a variant to its run's page
// (explorer_variant_run), and each row whose first cell is a run id to that run's page.
void link_rows_to_explorer(Table& table, const ReportRuns& runs);

// Writes the explorer for the loaded runs into out_dir; returns the path of explorer.html.
// Throws std::runtime_error when a file cannot be written.
std::filesystem::path write_explorer(const ReportRuns& runs, const std::filesystem::path& out_dir, std::ostream& log);
// The same for the run or sweep at dir; throws ReportError when dir is neither kind of directory.
std::filesystem::path write_explorer(const std::filesystem::path& dir, const std::filesystem::path& out_dir,
                                     std::ostream& log);

}  // namespace sinklab
