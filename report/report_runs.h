#pragma once
// Loading the runs a report covers. A run directory holds config.yaml, summary.json,
// metrics.jsonl and attention/*.npy; a sweep directory holds sweep.json
//   {"name": ..., "title": ..., "runs": [{"id": ..., "variant": ..., "seed": ..., "dir": "runs/<id>",
//                                        "class": ..., "predicted": ...}]}
// ("title", "class" and "predicted" optional) and one run directory per entry. A run whose summary.json is missing or corrupt is kept, marked
// failed with the reason, so one bad run never hides the others.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/sink_class.h"
#include "run_files/run_summary.h"

namespace sinklab {

class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReportRun {
  std::string id;
  std::string variant;
  uint64_t seed = 0;
  std::filesystem::path dir;
  std::optional<RunSummary> summary;  // empty when the run failed
  std::string error;                  // why it failed, naming the file
  std::optional<SinkClass> sink_class;  // the sweep variant's class, if it gave one (zoo comparison)
  std::string predicted;                // the sweep variant's predicted outcome, free text
  bool ok() const { return summary.has_value(); }  // finished: has a summary (diverged runs included)
  bool diverged() const { return summary && summary->diverged(); }
  // Finished without diverging: the only runs that enter means, CIs, per-head tables and plots.
  bool usable() const { return summary && !summary->diverged(); }
};

struct ReportRuns {
  std::string name;  // sweep name, or the run's name
  std::string title;  // a sweep report's title: sweep.json's "title", else its name
  bool is_sweep = false;
  std::vector<ReportRun> runs;
  std::vector<std::string> variants;  // in order of first appearance
};

enum class ReportDirKind { run, sweep };

// sweep.json -> sweep; summary.json, metrics.jsonl or config.yaml -> run. Throws ReportError
// naming the directory when it does not exist or is neither.
ReportDirKind detect_report_dir(const std::filesystem::path& dir);

ReportRuns load_run_dir(const std::filesystem::path& run_dir);
// Throws ReportError naming sweep.json and the field when the sweep file itself is unusable.
ReportRuns load_sweep_dir(const std::filesystem::path& sweep_dir);
// Either of the above, by detect_report_dir.
ReportRuns load_report_runs(const std::filesystem::path& dir);

// "L0H1": how reports name a (layer, head) pair.
std::string head_label(int layer, int head);

}  // namespace sinklab
