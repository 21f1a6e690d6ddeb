#include "run_files/sweep_manifest_file.h"

#include <string>

#include "core/io/file_read.h"
#include "run_files/json_fields.h"

namespace sinklab {
namespace {

// Type-checks every field that compare, report and Python read back, so that a hand-edited or foreign
// sweep.json is named with the field instead of ending in a raw nlohmann exception.
void check_manifest_fields(const nlohmann::json& j) {
  using namespace json_fields;
  get_string(j, "name", "");
  if (j.contains("title")) get_string(j, "title", "");  // files written before compare recorded a title have none
  if (j.contains("set")) {  // sweep.json files written before compare had --set have none
    const nlohmann::json& sets = get_array(j, "set", "");
    for (std::size_t i = 0; i < sets.size(); ++i)
      if (!sets[i].is_string())
        throw JsonFieldError("set[" + std::to_string(i) + "]: expected a string, got " + sets[i].type_name());
  }
  const nlohmann::json& runs = get_array(j, "runs", "");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string where = "runs[" + std::to_string(i) + "]";
    for (const char* key : {"id", "variant", "dir"}) get_string(runs[i], key, where);
    if (!member(runs[i], "seed", where).is_null()) get_int(runs[i], "seed", where);
    // Optional: sweeps without a zoo comparison omit class and predicted; compare always writes config and
    // overrides, a report reads a sweep folder without them.
    for (const char* key : {"class", "predicted", "config"})
      if (runs[i].contains(key)) get_string(runs[i], key, where);
    if (runs[i].contains("overrides") && !runs[i]["overrides"].is_object())
      throw JsonFieldError(where + ".overrides: expected an object, got " + runs[i]["overrides"].type_name());
  }
}

}  // namespace

nlohmann::json read_sweep_manifest_file(const std::filesystem::path& path) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxSweepManifestBytes, "sweep manifest");
  } catch (const FileReadError& e) {
    throw SweepManifestError(e.what());
  }
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
    throw SweepManifestError(path.string() + ": invalid JSON: " + e.what());
  }
  try {
    check_manifest_fields(json);
  } catch (const JsonFieldError& e) {
    throw SweepManifestError(path.string() + ": " + e.what());
  }
  return json;
}

}  // namespace sinklab
