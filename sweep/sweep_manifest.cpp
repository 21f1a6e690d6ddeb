#include "sweep/sweep_manifest.h"

#include <charconv>
#include <cmath>
#include <cstdint>

#include "core/io/file_write.h"
#include "run_files/run_summary.h"
#include "run_files/sweep_manifest_file.h"
#include "sweep/compare_sets.h"
#include "sweep/sweep_error.h"

namespace sinklab::sweep {

namespace fs = std::filesystem;

nlohmann::json typed_value(const std::string& text) {
  const char* first = text.data();
  const char* last = first + text.size();
  std::int64_t integer = 0;
  if (auto r = std::from_chars(first, last, integer); r.ec == std::errc() && r.ptr == last) return integer;
  double real = 0.0;
  if (auto r = std::from_chars(first, last, real); r.ec == std::errc() && r.ptr == last && std::isfinite(real))
    return real;
  if (text == "true") return true;
  if (text == "false") return false;
  return text;
}

nlohmann::json sweep_manifest(const SweepSpec& spec, const std::vector<PlannedRun>& runs,
                              const std::vector<std::string>& compare_sets) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& run : runs) {
    nlohmann::json overrides = nlohmann::json::object();
    for (const auto& o : run.overrides) overrides[o.key] = typed_value(o.value);
    nlohmann::json entry = {{"id", run.id},
                            {"variant", run.label},
                            {"seed", run.seed ? nlohmann::json(*run.seed) : nlohmann::json(nullptr)},
                            {"dir", "runs/" + run.id},
                            {"overrides", overrides},
                            {"config", fs::absolute(run.config).lexically_normal().string()}};
    if (!run.sink_class.empty()) entry["class"] = run.sink_class;
    if (!run.predicted.empty()) entry["predicted"] = run.predicted;
    list.push_back(std::move(entry));
  }
  return {{"name", spec.name},
          {"title", spec.title},
          {"source", fs::absolute(spec.source).lexically_normal().string()},
          {"set", compare_sets},
          {"runs", list}};
}

std::optional<nlohmann::json> read_sweep_manifest(const fs::path& out_dir) {
  const fs::path path = out_dir / "sweep.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  try {
    return read_sweep_manifest_file(path);
  } catch (const SweepManifestError& e) {
    throw SweepError(std::string(e.what()) +
                     " (fix it, or delete it to treat every run folder as belonging to this sweep file)");
  }
}

std::vector<std::string> changed_runs(const nlohmann::json& previous, const nlohmann::json& current) {
  // `previous` was read from disk: a member of the wrong type reads as "" (json::value() would throw).
  const auto text_of = [](const nlohmann::json& run, const char* key) {
    const auto it = run.find(key);
    return it != run.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  // A config path as seen from its sweep file (both absolute when compare wrote them): the same in every
  // checkout of the repository, so a sweep folder brought from another checkout, or kept results copied
  // back into runs/, resume instead of being redone. Unless both manifests name a source, as written.
  const std::string old_source = text_of(previous, "source");
  const std::string new_source = text_of(current, "source");
  const bool from_sources = !old_source.empty() && !new_source.empty();
  const auto as_seen = [from_sources](const std::string& config, const std::string& source) {
    return from_sources ? fs::path(config).lexically_relative(fs::path(source).parent_path()).string() : config;
  };
  std::vector<std::string> changed;
  const auto old_runs = previous.find("runs");
  if (old_runs == previous.end() || !old_runs->is_array()) return changed;
  for (const auto& run : current.at("runs")) {
    for (const auto& old : *old_runs) {
      if (!old.is_object() || text_of(old, "id") != run.at("id")) continue;
      if (old.value("overrides", nlohmann::json()) != run.at("overrides") ||
          as_seen(text_of(old, "config"), old_source) != as_seen(run.at("config").get<std::string>(), new_source))
        changed.push_back(run.at("id"));
      break;
    }
  }
  return changed;
}

void check_same_compare_sets(const nlohmann::json& previous, const std::vector<std::string>& compare_sets,
                             const fs::path& out_dir) {
  std::vector<std::string> before;
  if (const auto it = previous.find("set"); it != previous.end() && it->is_array())
    for (const auto& s : *it)
      if (s.is_string()) before.push_back(s.get<std::string>());
  if (before == compare_sets) return;
  throw SweepError(out_dir.string() + " holds this sweep run with " + describe_compare_sets(before) +
                   " (its sweep.json), and this compare has " + describe_compare_sets(compare_sets) +
                   ": its runs answer another question. Give the same --set values to resume it, or another --out");
}

void write_sweep_manifest(const fs::path& out_dir, const SweepSpec& spec, const std::vector<PlannedRun>& runs,
                          const std::vector<std::string>& compare_sets) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw SweepError("cannot create sweep output folder '" + out_dir.string() + "': " + ec.message());
  try {
    write_file_atomically(out_dir / "sweep.json", sweep_manifest(spec, runs, compare_sets).dump(2) + "\n");
  } catch (const FileWriteError& e) {
    throw SweepError(e.what());  // already names the file and the OS error
  }
}

}  // namespace sinklab::sweep
