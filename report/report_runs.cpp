#include "report/report_runs.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "run_files/json_fields.h"
#include "run_files/sweep_manifest_file.h"

namespace sinklab {
namespace {

void load_summary(ReportRun& run) {
  try {
    run.summary = read_run_summary(run.dir / "summary.json");
  } catch (const RunFileError& e) {
    run.summary.reset();
    run.error = e.what();
  }
}

std::vector<std::string> variants_of(const std::vector<ReportRun>& runs) {
  std::vector<std::string> variants;
  for (const auto& r : runs)
    if (std::find(variants.begin(), variants.end(), r.variant) == variants.end()) variants.push_back(r.variant);
  return variants;
}

}  // namespace

ReportDirKind detect_report_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw ReportError(dir.string() + ": not a directory (expected a run or sweep directory)");
  if (std::filesystem::exists(dir / "sweep.json", ec)) return ReportDirKind::sweep;
  for (const char* marker : {"summary.json", "metrics.jsonl", "config.yaml"})
    if (std::filesystem::exists(dir / marker, ec)) return ReportDirKind::run;
  throw ReportError(dir.string() + ": neither a sweep directory (no sweep.json) nor a run directory "
                    "(no summary.json, metrics.jsonl or config.yaml)");
}

ReportRuns load_run_dir(const std::filesystem::path& run_dir) {
  ReportRun run;
  run.dir = run_dir;
  std::filesystem::path normal = run_dir.lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();  // "runs/a/" -> "runs/a"
  run.id = normal.filename().string();
  if (run.id.empty() || run.id == ".")
    run.id = std::filesystem::absolute(run_dir).lexically_normal().filename().string();
  load_summary(run);
  run.variant = run.ok() ? run.summary->name : run.id;
  if (run.ok()) run.seed = run.summary->seed;
  ReportRuns out;
  out.name = run.variant;
  out.runs.push_back(std::move(run));
  out.variants = variants_of(out.runs);
  return out;
}

namespace {

// One entry of sweep.json's runs; `seed_unset` when compare wrote null (no override set the seed).
ReportRun planned_run(const nlohmann::json& entry, const std::string& where, const std::filesystem::path& sweep_dir,
                      bool& seed_unset) {
  using namespace json_fields;
  ReportRun run;
  run.id = get_string(entry, "id", where);
  run.variant = get_string(entry, "variant", where);
  // compare writes null when no override set the seed: the run's summary then says which it was.
  seed_unset = member(entry, "seed", where).is_null();
  if (!seed_unset) run.seed = get_uint(entry, "seed", where);
  if (entry.contains("class")) {
    const std::string letter = get_string(entry, "class", where);
    run.sink_class = parse_sink_class(letter);
    if (!run.sink_class)
      throw JsonFieldError(where + ".class: '" + letter + "' is not a sink class (one of " + sink_class_letters() +
                           ")");
  }
  if (entry.contains("predicted")) run.predicted = get_string(entry, "predicted", where);
  const std::filesystem::path rel = std::filesystem::path(get_string(entry, "dir", where)).lexically_normal();
  // compare writes runs/<id>; anything leaving the sweep folder would report another folder's runs.
  if (rel.is_absolute() || rel.empty() || *rel.begin() == "..")
    throw JsonFieldError(where + ".dir: '" + rel.string() + "' is not a folder inside the sweep folder");
  run.dir = sweep_dir / rel;
  return run;
}

}  // namespace

ReportRuns load_sweep_dir(const std::filesystem::path& sweep_dir) {
  const std::filesystem::path path = sweep_dir / "sweep.json";
  nlohmann::json j;
  try {
    j = read_sweep_manifest_file(path);
  } catch (const SweepManifestError& e) {
    throw ReportError(e.what());
  }
  ReportRuns out;
  out.is_sweep = true;
  std::vector<bool> seed_from_summary;
  try {
    using namespace json_fields;
    out.name = get_string(j, "name", "");
    // sweep.json files written before compare recorded a title have only the name.
    out.title = j.contains("title") ? get_string(j, "title", "") : "";
    if (out.title.empty()) out.title = out.name;
    const nlohmann::json& runs = get_array(j, "runs", "");
    for (size_t i = 0; i < runs.size(); ++i) {
      bool seed_unset = false;
      out.runs.push_back(planned_run(runs[i], "runs[" + std::to_string(i) + "]", sweep_dir, seed_unset));
      seed_from_summary.push_back(seed_unset);
    }
  } catch (const JsonFieldError& e) {
    throw ReportError(path.string() + ": " + e.what());
  }
  for (size_t i = 0; i < out.runs.size(); ++i) {
    ReportRun& run = out.runs[i];
    load_summary(run);
    if (seed_from_summary[i] && run.ok()) run.seed = run.summary->seed;
    if (!seed_from_summary[i] && run.ok() &&
        run.summary->seed != run.seed) {  // a folder copied or linked from another run
      run.error = (run.dir / "summary.json").string() + ": seed " + std::to_string(run.summary->seed) +
                  ", but sweep.json planned seed " + std::to_string(run.seed) + " for " + run.id;
      run.summary.reset();
    }
  }
  out.variants = variants_of(out.runs);
  return out;
}

std::string head_label(int layer, int head) {
  std::string s = "L";  // appended piecewise: GCC 12 warns falsely (-Wrestrict) on "L" + std::string
  s += std::to_string(layer);
  s += 'H';
  s += std::to_string(head);
  return s;
}

TaskMeasures& TaskMeasures::operator|=(const TaskMeasures& o) {
  regression |= o.regression;
  tokens |= o.tokens;
  no_op_rows |= o.no_op_rows;
  all_rows |= o.all_rows;
  trigger_row |= o.trigger_row;
  other_no_op_rows |= o.other_no_op_rows;
  return *this;
}

TaskMeasures measures_of(const ReportRun& run) {
  TaskMeasures m;
  if (!run.usable()) return m;
  const RunSummary& s = *run.summary;
  m.tokens = s.eval_loss.has_value();
  m.regression = !m.tokens;
  m.no_op_rows = std::any_of(s.heads.begin(), s.heads.end(),
                             [](const HeadSinkStats& h) { return !std::isnan(h.bos_mass_nontrigger_mean); });
  m.all_rows = !m.no_op_rows && !s.heads.empty();
  m.trigger_row = s.eval_trigger >= 0;
  m.other_no_op_rows = m.no_op_rows && !m.trigger_row;
  return m;
}

TaskMeasures measures_of(const ReportRuns& runs) {
  TaskMeasures m;
  for (const auto& r : runs.runs) m |= measures_of(r);
  return m;
}

std::string sink_rows_name(const TaskMeasures& m) {
  if (!m.no_op_rows) return "all rows";
  return m.other_no_op_rows ? "no-op rows" : "non-trigger rows";
}

ReportRuns load_report_runs(const std::filesystem::path& dir) {
  return detect_report_dir(dir) == ReportDirKind::sweep ? load_sweep_dir(dir) : load_run_dir(dir);
}

}  // namespace sinklab
