#pragma once
// The sink explorer: an offline page (plain JS + CSS, no network) that steps through a run's attention
// maps over training, head by head, with each head's BOS mass / sink score / virtual mass curves.
// `sinklab report DIR` writes, into the report directory:
//   explorer.html, explorer.js, explorer.css   the page and its code (report/explorer/explorer_assets.h)
//   explorer-data.js                           window.SINKLAB_EXPLORER = {...}: everything but the maps
//   explorer-maps/<mean|example>-<i>.js        step i's maps, base64 float32 [L, H, R, C], loaded when shown
// For a sweep, explorer.html compares one head across variants (seeds as small multiples) and every
// run gets its own page under explorer-runs/<run id>/, linked from the sweep page.
// A missing or unreadable snapshot file never fails the report: the page says what is wrong.
#include <filesystem>
#include <ostream>

#include <nlohmann/json.hpp>

#include "report/report_runs.h"

namespace sinklab {

struct AttentionSnapshots;

// The page's description of one run's maps: steps, shape, stored rows/columns ("pooled": true when a
// stored position stands for the positions up to the next one, as in the snapshot file; false when it
// is a sampled position, as in the final maps), roles, tokens, "token_labels" (each token's text made
// visible and valid UTF-8, report/explorer/token_label_text.h; null without labels) and per step the
// maps as base64 (float16 when every value is one, else float32; "dtype" says which).
nlohmann::json explorer_maps_data(const AttentionSnapshots& maps, bool pooled);

// Everything the page shows of one run (attention maps, curves, onsets), as the data file holds it.
// Problems with the run's files become "maps_error" / "curves_error" text, and a line on log.
nlohmann::json explorer_run_data(const ReportRun& run, std::ostream& log);

// Writes the explorer for the run or sweep at dir into out_dir; returns the path of explorer.html.
// Throws ReportError when dir is neither kind of directory, std::runtime_error when a file cannot be written.
std::filesystem::path write_explorer(const std::filesystem::path& dir, const std::filesystem::path& out_dir, std::ostream& log);

}  // namespace sinklab
