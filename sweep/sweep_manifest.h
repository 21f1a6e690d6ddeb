#pragma once
// <out>/sweep.json: what the sweep is made of, written before any run starts so that reports (and
// people) can find every run folder and the overrides that made it.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"

namespace sinklab::sweep {

// {"name", "title", "source", "set": ["k=v", ...], "runs": [{"id", "variant", "seed", "dir": "runs/<id>",
// "overrides": {...}, "config", "class", "predicted"}]}; "title" heads the report (SweepSpec::title),
// "set" is the `compare --set` list as typed (part of the sweep's identity: check_same_compare_sets),
// "variant" is the aggregation label, override values keep their YAML type (numbers stay numbers) and
// include the --set ones, "seed" is null when neither the grid nor the variant sets it; "class" and
// "predicted" only when the variant gives them.
nlohmann::json sweep_manifest(const SweepSpec& spec, const std::vector<PlannedRun>& runs,
                              const std::vector<std::string>& compare_sets = {});

// Writes sweep_manifest() to <out_dir>/sweep.json atomically (core/io/file_write.h). Throws SweepError
// naming the file and the OS error.
void write_sweep_manifest(const std::filesystem::path& out_dir, const SweepSpec& spec,
                          const std::vector<PlannedRun>& runs, const std::vector<std::string>& compare_sets = {});

// The runs in a sweep folder answer the question its --set list asked: resuming it with another list
// (a sweep.json without "set" had none) throws SweepError naming both lists and the way out.
void check_same_compare_sets(const nlohmann::json& previous, const std::vector<std::string>& compare_sets,
                             const std::filesystem::path& out_dir);

// The sweep.json already in `out_dir`, or nothing when there is none, read by its one reader
// (run_files/sweep_manifest_file.h). One that does not parse or has a missing or mistyped field throws
// SweepError naming the file and the field.
std::optional<nlohmann::json> read_sweep_manifest(const std::filesystem::path& out_dir);

// Ids present in both manifests whose overrides or config path differ: their finished results belong
// to an older sweep file and must not be reused on resume. Where both manifests name their sweep file
// (`source`), a config path counts as seen from that file, so the same sweep in another checkout (a sweep
// folder moved, or kept results copied back) is not "changed".
std::vector<std::string> changed_runs(const nlohmann::json& previous, const nlohmann::json& current);

// "1e-3" -> 0.001, "4" -> 4, "true" -> true, "relu" -> "relu".
nlohmann::json typed_value(const std::string& yaml_scalar);

}  // namespace sinklab::sweep
