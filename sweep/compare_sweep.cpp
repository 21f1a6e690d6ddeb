#include "sweep/compare_sweep.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>

#include "core/text/shell_quote.h"
#include "report/explorer/explorer_page.h"
#include "report/report.h"
#include "run_files/output_path.h"
#include "run_files/run_folder_lock.h"
#include "sweep/compare_sets.h"
#include "sweep/run_naming.h"
#include "sweep/sweep_error.h"
#include "sweep/sweep_manifest.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_validation.h"
#include "sweep/train_arguments.h"

namespace sinklab::sweep {
namespace {

namespace fs = std::filesystem;

// An argument as a POSIX shell reads it back: as is when plain, else in single quotes.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                              "0123456789._-=+/:,@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The command the runner would start for `run`, complete enough to paste into a shell.
std::string command_text(const fs::path& executable, const PlannedRun& run, const fs::path& dir, int jobs) {
  // A folder of another run has its summary and checkpoint moved aside first: it starts over.
  const RunStart start = run_finished(dir, run)              ? RunStart::fresh
                         : !foreign_summary(dir, run).empty() ? RunStart::start_over
                                                              : choose_run_start(dir);
  std::string text = shell_word(executable.string());
  for (const auto& arg : train_arguments(run, dir, jobs, start)) text += " " + shell_word(arg);
  return text;
}

// The sinklab binary for the listing: the one compare would start, or plain "sinklab" when it is
// missing (a dry run only shows the commands).
fs::path listed_executable(const fs::path& executable) {
  try {
    return resolve_executable(executable);
  } catch (const SweepError&) {
    return "sinklab";
  }
}

void list_runs(const PlannedSweep& plan, std::ostream& out) {
  const std::vector<PlannedRun>& runs = plan.runs;
  const fs::path executable = listed_executable(plan.executable);
  std::size_t finished = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const fs::path dir = run_dir(plan.out_dir, runs[i]);
    const bool done = run_finished(dir, runs[i]);  // diverged runs are finished too
    finished += done;
    out << "[" << i + 1 << "/" << runs.size() << "] " << runs[i].id << (done ? "  (finished)" : "") << "\n    "
        << command_text(executable, runs[i], dir, plan.jobs) << "\n";
  }
  out << runs.size() - finished << " of " << runs.size() << " runs to do; dry run, nothing started\n";
}

// The analysis report over every run (failed ones are listed in it), then its terminal table.
// The runs are done and their results safe whatever happens here, so a report problem is reported,
// not thrown: `sinklab report` can redo it. False also when the report lists a run as failed that this
// compare counted as finished (`counted_failed` runs are known): the exit status never says less than it.
bool write_report(const fs::path& out_dir, const fs::path& executable, bool render, std::size_t counted_failed,
                  std::ostream& out, std::ostream& err) {
  ReportOptions report;
  report.render = render;
  report.log = &err;
  try {
    write_sweep_report(out_dir, report);
    const ReportRuns runs = load_report_runs(out_dir);
    out << "\n" << variant_table_text(runs);
    out << "report: " << (report_output_dir(out_dir, report) / "index.html").string() << "\n";
    out << "explorer: " << (report_output_dir(out_dir, report) / kExplorerPage).string() << "\n";
    const auto failed = static_cast<std::size_t>(
        std::count_if(runs.runs.begin(), runs.runs.end(), [](const ReportRun& r) { return !r.ok(); }));
    if (failed <= counted_failed) return true;
    err << "sinklab: the report lists " << failed << (failed == 1 ? " run" : " runs")
        << " as failed (FAILED lines above), more than this compare counted: their files changed while it ran\n";
    return false;
  } catch (const std::runtime_error& e) {
    err << "sinklab: the runs are saved but the report failed: " << e.what() << "\n"
        << "  (after fixing it: " << shell_command({listed_executable(executable).string(), "report", out_dir.string()})
        << ")\n";
    return false;
  }
}

}  // namespace

PlannedSweep plan_sweep(const CompareOptions& options, std::ostream& out) {
  PlannedSweep plan;
  plan.spec = load_sweep_spec(options.sweep_file);
  plan.runs = expand_sweep(plan.spec);
  const std::vector<Override> sets = parse_compare_sets(options.sets, plan.spec);
  apply_compare_sets(sets, plan.runs);
  plan.jobs = options.jobs > 0 ? options.jobs : default_jobs();
  validate_sweep(plan.spec, plan.runs, options.vocab, plan.jobs);
  plan.compare_sets = options.sets;
  plan.executable = options.executable;
  std::vector<KeyValue> named;  // the folder says what the --set values changed, as a run's name does
  for (const auto& o : sets) named.emplace_back(o.key, o.value);
  plan.out_dir =
      options.out_dir.empty() ? fs::path("runs") / name_with_overrides(plan.spec.name, named) : options.out_dir;
  check_output_path(plan.out_dir, OutputKind::folder, "--out");
  const std::size_t points = plan.runs.size() / plan.spec.variants.size();
  out << "sweep " << plan.spec.name << ": " << plan.runs.size() << (plan.runs.size() == 1 ? " run" : " runs") << " ("
      << plan.spec.variants.size() << (plan.spec.variants.size() == 1 ? " variant" : " variants") << " x " << points
      << (points == 1 ? " grid point" : " grid points") << ") in " << plan.out_dir.string() << "\n";
  return plan;
}

void list_planned_runs(const PlannedSweep& plan, std::ostream& out) {
  if (const auto previous = read_sweep_manifest(plan.out_dir))
    check_same_compare_sets(*previous, plan.compare_sets, plan.out_dir);
  list_runs(plan, out);
}

void prepare_sweep_folder(const PlannedSweep& plan, std::ostream& out) {
  // Results of a run whose overrides changed since the last invocation answer a different question.
  const nlohmann::json manifest = sweep_manifest(plan.spec, plan.runs, plan.compare_sets);
  if (const auto previous = read_sweep_manifest(plan.out_dir)) {
    check_same_compare_sets(*previous, plan.compare_sets, plan.out_dir);
    for (const auto& id : changed_runs(*previous, manifest)) {
      out << "note: " << id << " changed since the last invocation (overrides or config); redoing it\n";
      std::error_code ec;
      fs::remove_all(plan.out_dir / "runs" / id, ec);
      if (ec) throw SweepError("cannot clear '" + (plan.out_dir / "runs" / id).string() + "': " + ec.message());
    }
  }
  write_sweep_manifest(plan.out_dir, plan.spec, plan.runs, plan.compare_sets);
}

int finish_sweep(const PlannedSweep& plan, const SweepOutcome& outcome, const CompareOptions& options,
                 std::ostream& out, std::ostream& err) {
  out << format_final_count(outcome) << "\n";
  err << format_quarantine_report(outcome.quarantined);
  if (!outcome.failed.empty()) err << format_failure_report(outcome.failed);
  // A diverged run is a result (this normalizer/lr diverges), not a failure: it does not change the code.
  // Damaged files moved aside are: their runs were redone, but a script must hear of the damage.
  int code = !outcome.failed.empty()        ? 1
             : !outcome.quarantined.empty() ? kCompareExitFilesMovedAside
                                            : 0;
  if (options.report &&
      !write_report(plan.out_dir, plan.executable, options.render_plots, outcome.failed.size(), out, err))
    code = 1;
  return code;
}

int compare_sweep(const CompareOptions& options, std::ostream& out, std::ostream& err) {
  const PlannedSweep plan = plan_sweep(options, out);
  if (options.dry_run) {
    list_planned_runs(plan, out);
    return 0;
  }
  // One compare per sweep folder: a second one is refused before it writes anything.
  const RunFolderLock lock(plan.out_dir, "sweep folder");
  prepare_sweep_folder(plan, out);

  RunnerOptions runner;
  runner.executable = options.executable;
  runner.jobs = options.jobs;
  runner.progress = [&out](const std::string& line) { out << line << std::endl; };
  runner.status = [&err](const std::string& line) { err << line << std::endl; };
  if (options.status_interval) runner.status_interval = *options.status_interval;
  const SweepOutcome outcome = run_sweep(plan.runs, plan.out_dir, runner);
  return finish_sweep(plan, outcome, options, out, err);
}

}  // namespace sinklab::sweep
