#pragma once
// The run-directory contract between train (writes), sweep and report (read):
//   summary.json   one RunSummary, written once when a run ends (atomically: temp file + rename,
//                  so its presence means the run finished)
//   metrics.jsonl  one MetricsRecord per logged step
// Field names are the JSON keys; every per-head statistic appears under its name in
// stats/head_statistics.h. from_json reports a missing or mistyped field by name; NaN/inf numbers
// (a statistic whose rows never occurred, a diverged loss) are stored as null.
#include <array>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_files/json_fields.h"
#include "run_files/run_times.h"
#include "stats/extreme_tokens.h"
#include "stats/head_statistics.h"
#include "stats/run_numbers.h"

namespace sinklab {

class RunFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunSummary {
  std::string name;
  uint64_t seed = 0;
  int64_t steps = 0;
  // "max_abs_error", "max_steps" or "loss"; "non_finite" when the run diverged: then `non_finite` says
  // what went non-finite at which step, the metrics below are NaN (null in JSON, never 0) and heads is
  // empty. Use diverged() rather than comparing strings.
  std::string stop_reason;
  std::string non_finite;
  bool reached_stop_rule = false;
  // The numbers of stats/run_numbers.h: what the final evaluation measured (train_loss, eval_mse, ...,
  // sink_rate), NaN (null in JSON, never 0) when the run diverged.
#define SINKLAB_ALWAYS_FIELD(name, ...) double name = 0.0;
#define SINKLAB_WHEN_DEFINED_FIELD(name, ...) std::optional<double> name;
  SINKLAB_RUN_NUMBERS(SINKLAB_ALWAYS_FIELD, SINKLAB_WHEN_DEFINED_FIELD)
  // Reference numbers the task reports about itself (Task::baselines, e.g. bigram_backcopy's
  // markov_entropy), by name; absent from the JSON when the task has none.
  std::vector<std::pair<std::string, double>> task_baselines;
  std::string normalizer;
  int layers = 0;
  int heads_per_layer = 0;
  int seq_len = 0;
  int eval_trigger = 0;
  double sink_eps = 0.0;
  int threads = 1;
  std::string git_revision;
  // Evaluation statistics, layer-major, layers * heads_per_layer; the JSON also carries each head's
  // bos_mass_by_row (seq_len numbers) and sink onset steps (null when never reached).
  std::vector<HeadSinkStats> heads;
  // The final evaluation's extreme-token statistics (stats/extreme_tokens.h); absent in older files.
  std::optional<ExtremeTokenReport> extreme_tokens;
  // Where the time of the invocation that finished the run went (run_files/run_times.h); absent in
  // older files. Wall-clock numbers, like wall_seconds: no two runs share them.
  std::optional<RunTimes> time_seconds;

  bool diverged() const { return stop_reason == kStopNonFinite; }
  static constexpr const char* kStopNonFinite = "non_finite";
};

// `sinklab train`'s exit status for a diverged run (its summary.json has stop_reason "non_finite"):
// train exits with it, compare reads it. Such a run is finished, not failed, and not rerun.
inline constexpr int kTrainExitDiverged = 3;

// The most bytes a sweep's sweep.json may have when read back (compare's manifest, the report's list
// of runs): far above any grid a sweep file is allowed to expand to.
inline constexpr uint64_t kMaxSweepManifestBytes = uint64_t{1} << 30;

struct MetricsRecord {
  int64_t step = 0;
  SINKLAB_STEP_NUMBERS(SINKLAB_ALWAYS_FIELD, SINKLAB_WHEN_DEFINED_FIELD)  // stats/run_numbers.h
  std::vector<HeadSinkStats> heads;  // computed on this step's training batch; the statistics only
  // Evaluation steps only: the extreme-token statistics of the evaluation (stats/extreme_tokens.h).
  std::optional<ExtremeTokenReport> extreme_tokens;
};
#undef SINKLAB_ALWAYS_FIELD
#undef SINKLAB_WHEN_DEFINED_FIELD

// The two lists of stats/run_numbers.h as entries with their fields, for code that iterates them.
#define SINKLAB_RUN_NUMBER_ENTRY(holder, name, in_run_table, format, doc, always, when_defined) \
  RunNumber<holder>{#name, InRunTable::in_run_table, NumberFormat::format, doc, always, when_defined},
#define SINKLAB_SUMMARY_ALWAYS(name, in_run_table, format, doc) \
  SINKLAB_RUN_NUMBER_ENTRY(RunSummary, name, in_run_table, format, doc, &RunSummary::name, nullptr)
#define SINKLAB_SUMMARY_WHEN_DEFINED(name, in_run_table, format, doc) \
  SINKLAB_RUN_NUMBER_ENTRY(RunSummary, name, in_run_table, format, doc, nullptr, &RunSummary::name)
#define SINKLAB_STEP_ALWAYS(name, in_run_table, format, doc) \
  SINKLAB_RUN_NUMBER_ENTRY(MetricsRecord, name, in_run_table, format, doc, &MetricsRecord::name, nullptr)
#define SINKLAB_STEP_WHEN_DEFINED(name, in_run_table, format, doc) \
  SINKLAB_RUN_NUMBER_ENTRY(MetricsRecord, name, in_run_table, format, doc, nullptr, &MetricsRecord::name)
inline constexpr std::array kRunSummaryNumbers = {
    SINKLAB_RUN_NUMBERS(SINKLAB_SUMMARY_ALWAYS, SINKLAB_SUMMARY_WHEN_DEFINED)};
inline constexpr std::array kMetricsRecordNumbers = {
    SINKLAB_STEP_NUMBERS(SINKLAB_STEP_ALWAYS, SINKLAB_STEP_WHEN_DEFINED)};
#undef SINKLAB_RUN_NUMBER_ENTRY
#undef SINKLAB_SUMMARY_ALWAYS
#undef SINKLAB_SUMMARY_WHEN_DEFINED
#undef SINKLAB_STEP_ALWAYS
#undef SINKLAB_STEP_WHEN_DEFINED

// A head as metrics.jsonl has it (the statistics of stats/head_statistics.h); summary.json adds
// bos_mass_by_row and the onset steps, which from_json reads when present.
void to_json(nlohmann::json& j, const HeadSinkStats& s);
void from_json(const nlohmann::json& j, HeadSinkStats& s);
void to_json(nlohmann::json& j, const RunSummary& s);
void from_json(const nlohmann::json& j, RunSummary& s);  // checks heads.size() == layers * heads_per_layer
void to_json(nlohmann::json& j, const MetricsRecord& r);
void from_json(const nlohmann::json& j, MetricsRecord& r);

// Pretty-printed, written atomically (core/io/file_write.h). Errors name the file.
void write_run_summary(const std::filesystem::path& path, const RunSummary& summary);
// Throws RunFileError naming the file and the problem (missing, bad JSON, which field).
RunSummary read_run_summary(const std::filesystem::path& path);

// One compact JSON object and '\n'; the caller owns the stream (and flushes as it likes).
void write_metrics_line(std::ostream& out, const MetricsRecord& record);
// Blank lines are skipped; a bad line throws RunFileError naming the file and the line number.
std::vector<MetricsRecord> read_metrics(const std::filesystem::path& path);
// Only the first `lines` lines (a resume reads the lines its checkpoint counted; what follows may be
// half-written). Fewer lines in the file throw RunFileError.
std::vector<MetricsRecord> read_metrics(const std::filesystem::path& path, uint64_t lines);

}  // namespace sinklab
