#include "run_files/run_times.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

#include "run_files/json_fields.h"

namespace sinklab {
namespace {

constexpr std::array<std::pair<const char*, double RunTimes::*>, 5> kPhases{{{"setup", &RunTimes::setup},
                                                                             {"steps", &RunTimes::steps},
                                                                             {"evaluations", &RunTimes::evaluations},
                                                                             {"analysis", &RunTimes::analysis},
                                                                             {"writing", &RunTimes::writing}}};

// Three significant digits, never exponent notation: 0.0123, 1.23, 12.3, 1234.
std::string seconds_text(double seconds) {
  char text[32];
  const int decimals = seconds >= 100 ? 0 : seconds >= 10 ? 1 : seconds >= 1 ? 2 : 3;
  std::snprintf(text, sizeof text, "%.*f s", decimals, seconds);
  return text;
}

}  // namespace

nlohmann::json run_times_json(const RunTimes& times) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, field] : kPhases) j[name] = times.*field;
  return j;
}

RunTimes parse_run_times(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw JsonFieldError(where + ": expected an object of seconds per phase");
  RunTimes times;
  for (const auto& [name, field] : kPhases) {
    const double value = json_fields::get_double(j, name, where);
    if (!(value >= 0) || !std::isfinite(value))
      throw JsonFieldError(json_fields::field_path(where, name) + ": expected a number of seconds >= 0");
    times.*field = value;
  }
  return times;
}

std::string format_run_times(const RunTimes& times) {
  std::string text = "time:";
  for (const auto& [name, field] : kPhases)
    text += std::string(field == &RunTimes::setup ? " " : ", ") + name + " " + seconds_text(times.*field);
  return text + "; total " + seconds_text(times.total());
}

}  // namespace sinklab
