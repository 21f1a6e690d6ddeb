#pragma once
// Loading the runs a report covers. A run directory holds config.yaml, summary.json,
// metrics.jsonl and attention/*.npy; a sweep directory holds sweep.json
//   {"name": ..., "title": ..., "runs": [{"id": ..., "variant": ..., "seed": ..., "dir": "runs/<id>",
//                                        "class": ..., "predicted": ...}]}
// ("title", "class" and "predicted" optional) and one run directory per entry. A run whose summary.json is missing or
// corrupt is kept, marked failed with the reason, so one bad run never hides the others.
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

// What a run's task measures, as its summary records it. The task declares it (data/task.h): its loss
// (TaskShape::loss) decides whether the evaluation wrote eval_mse or eval_loss and eval_accuracy, its
// fixed evaluation row (Task::fixed_eval_row: the trigger task's trigger) is eval_trigger, and the
// roles it gives positions decide which head statistics are null (no no-op rows: every statistic over
// no-op rows is null). The report picks its columns, axis labels and row names from this, never from
// task names.
struct TaskMeasures {
  bool regression = false;    // mse loss: eval_mse, eval_max_abs_error
  bool tokens = false;        // cross-entropy: eval_loss (nats; bits = nats / ln 2), eval_accuracy
  bool no_op_rows = false;    // head statistics over no-op rows are defined
  bool all_rows = false;      // no no-op rows: the report shows the statistics over all rows instead
  bool trigger_row = false;   // one fixed active row, the trigger: no-op rows are "non-trigger" rows
  bool other_no_op_rows = false;  // no-op rows in a run without a trigger row (copy, reverse, ...)
  TaskMeasures& operator|=(const TaskMeasures& other);
};
// Of one finished run that did not diverge; all false for others.
TaskMeasures measures_of(const ReportRun& run);
// The union over the usable runs.
TaskMeasures measures_of(const ReportRuns& runs);
// How the report names the rows its sink statistics read: "non-trigger rows" when every run with no-op
// rows has a trigger row, "no-op rows" when others have them too, else "all rows".
std::string sink_rows_name(const TaskMeasures& m);

// "L0H1": how reports name a (layer, head) pair.
std::string head_label(int layer, int head);

}  // namespace sinklab
