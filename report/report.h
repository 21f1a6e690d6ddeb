#pragma once
// Reports over saved runs: `sinklab report DIR` and the sweep code call these. Output goes to
// <dir>/report/ (or options.output_dir):
//   summary.csv   one row per run (failed runs included, with the reason)
//   summary.md    per-variant table (mean ± 95% CI over seeds), per-head table, failed runs
//   index.html    self-contained page with the tables and every figure
//   figures/      <name>.dat + <name>.gp for each figure, rendered to <name>.png and .svg
//   explorer.html the sink explorer and its files (report/explorer/explorer_page.h); index.html's
//                 variant and run rows link to its run pages
// A run whose summary.json is missing or corrupt is listed as failed (which run, why), never fatal.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "report/report_runs.h"

namespace sinklab {

struct ReportOptions {
  std::filesystem::path output_dir;  // empty: <dir>/report
  std::string gnuplot = "gnuplot";   // program name searched on PATH, or a path
  bool render = true;                // false: write data and scripts only
  std::ostream* log = nullptr;       // warnings and progress; nullptr = std::cerr
  // Whose attention maps and BOS-vs-step curve are drawn: this seed's run of every variant; empty: each
  // variant's lowest seed that finished. A seed no run has is a ReportError naming the seeds there are.
  std::optional<uint64_t> seed = std::nullopt;
};

std::filesystem::path report_output_dir(const std::filesystem::path& dir, const ReportOptions& options);

// Throw ReportError when dir is not the right kind of directory or sweep.json is unusable.
void write_run_report(const std::filesystem::path& run_dir, ReportOptions options = {});
void write_sweep_report(const std::filesystem::path& sweep_dir, ReportOptions options = {});
// Either, by detect_report_dir.
void write_report(const std::filesystem::path& dir, ReportOptions options = {});

// The compact per-variant table for the terminal, with the eps/T/baseline notes and failed runs.
std::string variant_table_text(const ReportRuns& runs);
std::string variant_table_text(const std::filesystem::path& run_or_sweep_dir);

}  // namespace sinklab
