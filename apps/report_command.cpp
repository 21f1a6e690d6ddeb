// `sinklab report DIR`: regenerates the tables, plots and index.html of a run or sweep directory
// from what is saved on disk, prints the per-variant table and where the page is.
// `sinklab report eval-<folder>.json`: the explorer page of an open model on a text
// (report/explorer/open_model_explorer.h), in <stem>-report/ or --out DIR.
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "apps/commands.h"
#include "report/explorer/explorer_page.h"
#include "report/explorer/open_model_explorer.h"
#include "report/report.h"

namespace sinklab::apps {

void add_report_command(CLI::App& app) {
  struct Flags {
    std::string dir;
    std::string out;
    std::string gnuplot = "gnuplot";
    bool no_render = false;
    std::optional<uint64_t> seed;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("report", "Regenerate tables, plots and index.html for a run or sweep directory");
  cmd->add_option("DIR", flags->dir,
                  "A run directory (summary.json), a sweep directory (sweep.json), or the eval-<folder>.json of "
                  "`sinklab eval MODEL_DIR`")
      ->required();
  cmd->add_option("--out", flags->out,
                  "Output directory (default: DIR/report; for an eval JSON <stem>-report beside it)");
  cmd->add_option("--gnuplot", flags->gnuplot, "gnuplot program to render the figures with")->capture_default_str();
  cmd->add_option(
         "--seed", flags->seed,
         "Draw the attention maps and BOS-vs-step curves of this seed's runs (default: each variant's lowest seed)")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return v.find('-') == std::string::npos ? std::string() : v + " is not a seed (a whole number >= 0)";
          },
          "SEED"));
  cmd->add_flag("--no-render", flags->no_render, "Write figure data and gnuplot scripts without rendering");
  cmd->callback([flags] {
    ReportOptions options;
    options.output_dir = flags->out;
    options.gnuplot = flags->gnuplot;
    options.render = !flags->no_render;
    options.log = &std::cerr;
    options.seed = flags->seed;
    try {
      if (std::filesystem::is_regular_file(flags->dir)) {  // a file: the explorer of an open model on a text
        const std::filesystem::path page = write_open_model_explorer(
            flags->dir, flags->out.empty() ? open_model_explorer_dir(flags->dir) : std::filesystem::path(flags->out));
        std::cout << "explorer: " << page.string() << "\n";
        return;
      }
      const ReportRuns runs = load_report_runs(flags->dir);  // fails early, naming DIR, when it is neither kind
      write_report(flags->dir, options);  // the explorer included
      std::cout << variant_table_text(runs);
      std::cout << "report: " << (report_output_dir(flags->dir, options) / "index.html").string() << "\n";
      std::cout << "explorer: " << (report_output_dir(flags->dir, options) / kExplorerPage).string() << "\n";
    } catch (const std::runtime_error& e) {
      std::cerr << "sinklab: error: " << e.what() << "\n";
      throw CLI::RuntimeError(2);
    }
  });
}

}  // namespace sinklab::apps
