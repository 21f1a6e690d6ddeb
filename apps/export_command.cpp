// `sinklab export RUN_DIR|CHECKPOINT|CONFIG.yaml --format safetensors|npz [--out FILE] [--eval-samples N]`:
// a model's weights for other programs (models/weight_files.h). The parameters keep the names and
// shapes checkpoint.bin gives them, and the resolved config travels along (safetensors __metadata__
// "sinklab_config", or the .npz entry "config.yaml"). A config file instead of a run exports the fresh
// initialization of that config. --eval-samples also writes the first N evaluation inputs, targets and
// the model's outputs next to the export (FILE's stem + ".eval" + extension), for tools/check_export.py.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "apps/commands.h"
#include "config_loading/config_loader.h"
#include "models/model_loader.h"
#include "models/weight_files.h"
#include "run_files/output_path.h"

namespace sinklab::apps {
namespace {

namespace fs = std::filesystem;

bool is_config_file(const fs::path& p) {
  return fs::is_regular_file(p) && (p.extension() == ".yaml" || p.extension() == ".yml");
}

// The run folder a run folder or a checkpoint inside one belongs to.
fs::path run_folder_of(const fs::path& given) {
  if (fs::is_directory(given)) return given;
  return given.parent_path().empty() ? fs::path(".") : given.parent_path();
}

// model.safetensors -> model.eval.safetensors, next to it.
fs::path evaluation_path(const fs::path& out) {
  return out.parent_path() / (out.stem().string() + ".eval" + out.extension().string());
}

}  // namespace

void add_export_command(CLI::App& app) {
  struct Flags {
    std::string source;
    std::string format;
    std::string out;
    int eval_samples = 0;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write a model's weights (names and shapes as in its checkpoint) and resolved config as safetensors or npz");
  cmd->add_option("SOURCE", flags->source,
                  "A run folder, a checkpoint file inside one, or a config file (its fresh initialization)")
      ->required();
  cmd->add_option("--format", flags->format, "safetensors or npz")
      ->required()
      ->check(CLI::IsMember({"safetensors", "npz"}));
  cmd->add_option("--out", flags->out, "The file to write (default RUN_DIR/export/model.safetensors or model.npz)");
  cmd->add_option("--eval-samples", flags->eval_samples,
                  "Also write the first N evaluation inputs, targets and model outputs to FILE's stem + .eval")
      ->check(CLI::PositiveNumber);
  cmd->callback([flags] {
    const fs::path source(flags->source);
    const WeightFormat format = flags->format == "npz" ? WeightFormat::npz : WeightFormat::safetensors;
    const std::string extension = format == WeightFormat::npz ? ".npz" : ".safetensors";
    std::unique_ptr<Model> model;
    fs::path out(flags->out);
    if (is_config_file(source)) {
      if (out.empty()) throw std::invalid_argument("--out: needed when exporting a config file's initialization");
      model = build_model(load_run_config(source, {}, std::nullopt));
    } else {
      model = load_model(source);
      if (out.empty()) {
        const fs::path folder = run_folder_of(source) / "export";
        std::error_code ec;  // a link planted in the run folder would send the default output elsewhere
        if (fs::is_symlink(folder, ec))
          throw std::invalid_argument(
              folder.string() +
              " is a symbolic link; the default output goes only into a real folder (remove the link, or give --out)");
        out = folder / ("model" + extension);
      }
    }
    if (out.extension() != extension)
      throw std::invalid_argument("--out: " + out.string() + " does not end in " + extension + " (--format " +
                                  flags->format + ")");
    check_output_path(out, OutputKind::file, "--out");
    if (flags->eval_samples > 0) check_output_path(evaluation_path(out), OutputKind::file, "--eval-samples' file");
    if (!out.parent_path().empty()) fs::create_directories(out.parent_path());
    export_weights(*model, out, format);
    std::printf("wrote %s: %zu parameters, %zu values, config in %s\n", out.string().c_str(),
                model->parameters().parameters().size(), model->parameters().size(),
                format == WeightFormat::npz ? kExportConfigEntry : "__metadata__ sinklab_config");
    if (flags->eval_samples > 0) {
      const fs::path eval = evaluation_path(out);
      export_evaluation(*model, flags->eval_samples, eval, format);
      std::printf("wrote %s: the first %d evaluation inputs, targets and outputs\n", eval.string().c_str(),
                  flags->eval_samples);
    }
  });
}

}  // namespace sinklab::apps
