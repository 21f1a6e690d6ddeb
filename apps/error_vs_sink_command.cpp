// `sinklab error-vs-sink DIR [--betas 2,3,... | --no-curve] [--out OUT]`: Theorem 1's trade-off measured
// (report/error_vs_sink.h). For every finished run of the sweep (or run) folder DIR: its evaluation error
// eta and 1 - min BOS@nt; next to them the softmax construction (models/constructions.h) built on the
// first run's config for each beta and evaluated on the same evaluation set. Each run's checkpoint is
// evaluated again for the error on its no-op rows (its summary has the overall error only; the two
// evaluations must agree on that, bit for bit, or the command fails). Writes
// OUT/error_vs_sink.{csv,md,dat,gp,png,svg} (default OUT = DIR/error_vs_sink) and prints the tables.
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "config_loading/config_loader.h"
#include "core/options/bound.h"
#include "layers/normalizers/normalizer_registry.h"
#include "models/constructions.h"
#include "models/model_loader.h"
#include "report/error_vs_sink.h"
#include "report/gnuplot_runner.h"
#include "report/report_runs.h"
#include "run_files/output_path.h"
#include "train/evaluation_pipeline.h"

namespace sinklab::apps {
namespace {

namespace fs = std::filesystem;

RunConfig run_config(const fs::path& run_dir) {
  return load_run_config(run_dir / "config.yaml", {}, std::nullopt);
}

// eta, eta on the no-op rows and 1 - min BOS@nt of a model on a run's evaluation set, evaluated as the
// trainer does (train/evaluation_pipeline.h; re-evaluated: a run's summary has no per-row errors).
void measure(Model& model, const EvaluationPipeline& pipeline, ErrorSinkPoint& p) {
  EvaluationRequest request;
  request.row_errors = true;
  Graph graph;
  const SinkEvaluation e = pipeline.evaluate(graph, model, request);
  p.eta = e.metrics.max_abs_error;
  p.eta_no_op = e.metrics.no_op_max_abs_error;
  p.sink_gap = sink_gap(e.heads, pipeline.task().fixed_eval_row());
}

std::vector<ErrorSinkPoint> construction_curve(const RunConfig& base, const std::string& base_run,
                                               const std::vector<double>& betas) {
  try {
    check_construction_base(base, ConstructionKind::softmax);
  } catch (const ConstructionError& e) {
    throw std::invalid_argument("the construction curve is built on the first run's config (" + base_run +
                                "/config.yaml), which cannot hold the softmax construction: " + e.what() +
                                "; pass --no-curve to leave the curve out");
  }
  const EvaluationPipeline pipeline(base);
  std::vector<ErrorSinkPoint> points;
  for (const double beta : betas) {
    ConstructionParams params;
    params.beta = beta;
    auto model = build_construction(base, ConstructionKind::softmax, params);
    ErrorSinkPoint p;
    p.name = "construction beta=" + format_number(beta);
    p.setting = beta;
    measure(*model, pipeline, p);
    points.push_back(p);
  }
  return points;
}

void run(const std::string& dir, const std::vector<double>& betas, std::string out) {
  for (const double beta : betas) {  // the flag first, before any run is read
    ConstructionParams params;
    params.beta = beta;
    try {
      check_construction_params(ConstructionKind::softmax, params);
    } catch (const ConstructionError& e) {
      throw std::invalid_argument("--betas: " + e.detail());
    }
  }
  const ReportRuns runs = load_report_runs(dir);
  std::vector<ErrorSinkPoint> trained;
  const ReportRun* first = nullptr;
  for (const ReportRun& r : runs.runs) {
    if (!r.usable()) {
      std::cerr << "error-vs-sink: run " << r.id << " left out: " << (r.ok() ? "diverged" : r.error) << "\n";
      continue;
    }
    const RunSummary& s = *r.summary;
    if (!std::isfinite(s.eval_max_abs_error)) {
      std::cerr << "error-vs-sink: run " << r.id << " left out: no eval_max_abs_error (not an MSE task)\n";
      continue;
    }
    if (!first) first = &r;
    const RunConfig config = run_config(r.dir);
    auto model = load_model(r.dir / "checkpoint.bin", config);
    ErrorSinkPoint p;
    p.name = r.id;
    p.setting = config.train.stop_max_abs_error;
    p.stopped = s.reached_stop_rule;
    measure(*model, EvaluationPipeline(config), p);
    if (p.eta != s.eval_max_abs_error)
      throw std::runtime_error("run " + r.id + ": re-evaluating its checkpoint gives eta " + std::to_string(p.eta) +
                               ", its summary.json says " + std::to_string(s.eval_max_abs_error));
    trained.push_back(p);
  }
  if (!first) throw std::invalid_argument(dir + ": no finished run with an evaluation error");
  const std::vector<ErrorSinkPoint> constructions =
      betas.empty() ? std::vector<ErrorSinkPoint>{}
                    : construction_curve(run_config(first->dir), first->dir.string(), betas);
  const fs::path out_dir = out.empty() ? fs::path(dir) / "error_vs_sink" : fs::path(out);
  check_output_path(out_dir, OutputKind::folder, "--out");
  fs::create_directories(out_dir);
  write_error_vs_sink(out_dir, trained, constructions);
  GnuplotRunner gnuplot("gnuplot", std::cerr);
  gnuplot.render(out_dir / "error_vs_sink.gp");
  std::cout << error_vs_sink_markdown(trained, constructions);
  std::cout << "error-vs-sink: " << (out_dir / "error_vs_sink.md").string() << "\n";
}

}  // namespace

void add_error_vs_sink_command(CLI::App& app) {
  struct Flags {
    std::string dir, out;
    std::vector<double> betas{2, 3, 4, 5, 6, 7, 8, 10, 12};
    bool no_curve = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "error-vs-sink", "Evaluation error against 1 - min BOS@nt for every run, with the softmax construction's curve");
  cmd->add_option("DIR", flags->dir, "A sweep directory (sweep.json) or one run directory")->required();
  cmd->add_option("--betas", flags->betas, "Construction BOS logits for the curve (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_flag("--no-curve", flags->no_curve, "Leave the construction's curve out (runs it cannot be built on)");
  cmd->add_option("--out", flags->out, "Output directory (default: DIR/error_vs_sink)");
  cmd->callback([flags] {
    try {
      run(flags->dir, flags->no_curve ? std::vector<double>{} : flags->betas, flags->out);
    } catch (const std::exception& e) {
      std::cerr << "sinklab: error: " << e.what() << "\n";
      throw CLI::RuntimeError(2);
    }
  });
}

}  // namespace sinklab::apps
