#include "sweep/sweep_manifest.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>

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

nlohmann::json sweep_manifest(const SweepSpec& spec, const std::vector<PlannedRun>& runs) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& run : runs) {
    nlohmann::json overrides = nlohmann::json::object();
    for (const auto& o : run.overrides) overrides[o.key] = typed_value(o.value);
    list.push_back({{"id", run.id},
                    {"variant", run.label},
                    {"seed", run.seed ? nlohmann::json(*run.seed) : nlohmann::json(nullptr)},
                    {"dir", "runs/" + run.id},
                    {"overrides", overrides},
                    {"config", fs::absolute(run.config).lexically_normal().string()}});
  }
  return {{"name", spec.name}, {"source", fs::absolute(spec.source).lexically_normal().string()}, {"runs", list}};
}

std::optional<nlohmann::json> read_sweep_manifest(const fs::path& out_dir) {
  std::ifstream in(out_dir / "sweep.json");
  if (!in) return std::nullopt;
  auto json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  return json;
}

std::vector<std::string> changed_runs(const nlohmann::json& previous, const nlohmann::json& current) {
  // `previous` was read from disk: a member of the wrong type reads as "" (json::value() would throw).
  const auto text_of = [](const nlohmann::json& run, const char* key) {
    const auto it = run.find(key);
    return it != run.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::vector<std::string> changed;
  const auto old_runs = previous.find("runs");
  if (old_runs == previous.end() || !old_runs->is_array()) return changed;
  for (const auto& run : current.at("runs")) {
    for (const auto& old : *old_runs) {
      if (!old.is_object() || text_of(old, "id") != run.at("id")) continue;
      if (old.value("overrides", nlohmann::json()) != run.at("overrides") ||
          text_of(old, "config") != run.at("config"))
        changed.push_back(run.at("id"));
      break;
    }
  }
  return changed;
}

void write_sweep_manifest(const fs::path& out_dir, const SweepSpec& spec, const std::vector<PlannedRun>& runs) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw SweepError("cannot create sweep output folder '" + out_dir.string() + "': " + ec.message());
  const fs::path target = out_dir / "sweep.json";
  const fs::path temporary = out_dir / "sweep.json.tmp";
  {
    std::ofstream out(temporary);
    out << sweep_manifest(spec, runs).dump(2) << "\n";
    if (!out) throw SweepError("cannot write '" + temporary.string() + "'");
  }
  fs::rename(temporary, target, ec);
  if (ec) throw SweepError("cannot write '" + target.string() + "': " + ec.message());
}

}  // namespace sinklab::sweep
