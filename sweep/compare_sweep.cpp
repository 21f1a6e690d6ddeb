#include "sweep/compare_sweep.h"

#include <ostream>
#include <stdexcept>

#include "report/report.h"
#include "sweep/sweep_error.h"
#include "sweep/sweep_manifest.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_validation.h"

namespace sinklab::sweep {
namespace {

namespace fs = std::filesystem;

std::string command_text(const PlannedRun& run) {
  std::string text = "train " + run.config.string();
  for (const auto& o : override_strings(run)) text += " --set " + o;
  return text;
}

void list_runs(const std::vector<PlannedRun>& runs, const fs::path& out_dir, std::ostream& out) {
  std::size_t finished = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const bool done = run_finished(run_dir(out_dir, runs[i]));  // diverged runs are finished too
    finished += done;
    out << "[" << i + 1 << "/" << runs.size() << "] " << runs[i].id << (done ? "  (finished)" : "") << "\n    "
        << command_text(runs[i]) << "\n";
  }
  out << runs.size() - finished << " of " << runs.size() << " runs to do; dry run, nothing started\n";
}

// The analysis report over every run (failed ones are listed in it), then its terminal table.
// The runs are done and their results safe whatever happens here, so a report problem is reported,
// not thrown: `sinklab report` can redo it.
bool write_report(const fs::path& out_dir, bool render, std::ostream& out, std::ostream& err) {
  ReportOptions report;
  report.render = render;
  report.log = &err;
  try {
    write_sweep_report(out_dir, report);
    out << "\n" << variant_table_text(out_dir);
    out << "report: " << (report_output_dir(out_dir, report) / "index.html").string() << "\n";
    return true;
  } catch (const std::runtime_error& e) {
    err << "sinklab: the runs are saved but the report failed: " << e.what() << "\n"
        << "  (after fixing it: sinklab report " << out_dir.string() << ")\n";
    return false;
  }
}

}  // namespace

int compare_sweep(const CompareOptions& options, std::ostream& out, std::ostream& err) {
  const SweepSpec spec = load_sweep_spec(options.sweep_file);
  std::vector<PlannedRun> runs = expand_sweep(spec);
  validate_sweep(spec, runs, options.vocab);
  const fs::path out_dir = options.out_dir.empty() ? fs::path("runs") / spec.name : options.out_dir;
  const std::size_t points = runs.size() / spec.variants.size();
  out << "sweep " << spec.name << ": " << runs.size() << (runs.size() == 1 ? " run" : " runs") << " ("
      << spec.variants.size() << (spec.variants.size() == 1 ? " variant" : " variants") << " x " << points
      << (points == 1 ? " grid point" : " grid points") << ") in " << out_dir.string() << "\n";
  if (options.dry_run) {
    list_runs(runs, out_dir, out);
    return 0;
  }

  // Results of a run whose overrides changed since the last invocation answer a different question.
  const nlohmann::json manifest = sweep_manifest(spec, runs);
  if (const auto previous = read_sweep_manifest(out_dir)) {
    for (const auto& id : changed_runs(*previous, manifest)) {
      out << "note: " << id << " changed since the last invocation (overrides or config); redoing it\n";
      std::error_code ec;
      fs::remove_all(out_dir / "runs" / id, ec);
      if (ec) throw SweepError("cannot clear '" + (out_dir / "runs" / id).string() + "': " + ec.message());
    }
  }
  write_sweep_manifest(out_dir, spec, runs);

  RunnerOptions runner;
  runner.executable = options.executable;
  runner.jobs = options.jobs;
  runner.progress = [&out](const std::string& line) { out << line << std::endl; };
  const SweepOutcome outcome = run_sweep(runs, out_dir, runner);
  out << format_final_count(outcome) << "\n";
  if (!outcome.failed.empty()) err << format_failure_report(outcome.failed);
  // A diverged run is a result (this normalizer/lr diverges), not a failure: it does not change the code.
  int code = outcome.failed.empty() ? 0 : 1;
  if (options.report && !write_report(out_dir, options.render_plots, out, err)) code = 1;
  return code;
}

}  // namespace sinklab::sweep
