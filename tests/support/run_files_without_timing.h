#pragma once
// Run files with their wall-clock fields removed (steps_per_second in metrics.jsonl, wall_seconds and
// time_seconds in summary.json), which no two runs share: what is left must be bit-identical between a
// resumed and an uninterrupted run.
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace sinklab::testing {

// summary.json's wall-clock fields.
inline void erase_clock_fields(nlohmann::json& summary) {
  summary.erase("wall_seconds");
  summary.erase("time_seconds");
}

inline std::string without_timing(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (file.extension() == ".json") {
    nlohmann::json j = nlohmann::json::parse(in);
    erase_clock_fields(j);
    return j.dump(1);
  }
  std::string out, line;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line);
    j.erase("steps_per_second");
    out += j.dump() + "\n";
  }
  return out;
}

}  // namespace sinklab::testing
