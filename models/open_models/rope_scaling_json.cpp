#include "models/open_models/rope_scaling_json.h"

#include <set>

namespace sinklab {

void read_rope_scaling(const HfConfig& config, RopeConfig& rope) {
  const nlohmann::json& s = config.raw("rope_scaling");
  if (s.is_null()) return;
  if (!s.is_object()) config.fail("rope_scaling", s.dump() + " is neither null nor an object");
  const auto field = [&](const char* key) -> const nlohmann::json* {
    const auto it = s.find(key);
    return it == s.end() || it->is_null() ? nullptr : &*it;
  };
  std::string type;
  for (const char* key : {"rope_type", "type"})
    if (const nlohmann::json* v = field(key)) {
      if (!v->is_string()) config.fail("rope_scaling", std::string(key) + " " + v->dump() + " is not a string");
      if (!type.empty() && type != v->get<std::string>())
        config.fail("rope_scaling", "\"rope_type\" and \"type\" disagree");
      type = v->get<std::string>();
    }
  const auto number = [&](const char* key) -> double {
    const nlohmann::json* v = field(key);
    if (!v || !v->is_number() || v->get<double>() <= 0)
      config.fail("rope_scaling", std::string("\"") + key + "\" must be a positive number for rope_type " + type);
    return v->get<double>();
  };
  std::set<std::string> known = {"rope_type", "type"};
  if (type == "default") {
    // Some configs spell "no scaling" this way.
  } else if (type == "linear") {
    rope.scaling = RopeScaling::linear;
    rope.factor = number("factor");
    known.insert("factor");
  } else if (type == "llama3") {
    rope.scaling = RopeScaling::llama3;
    rope.factor = number("factor");
    rope.low_freq_factor = number("low_freq_factor");
    rope.high_freq_factor = number("high_freq_factor");
    const double original = number("original_max_position_embeddings");
    if (original != static_cast<double>(static_cast<int>(original)))
      config.fail("rope_scaling", "original_max_position_embeddings must be an integer");
    rope.original_max_positions = static_cast<int>(original);
    if (rope.high_freq_factor <= rope.low_freq_factor)
      config.fail("rope_scaling", "high_freq_factor must be greater than low_freq_factor");
    known.insert({"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"});
  } else {
    config.fail("rope_scaling", "rope_type \"" + type + "\" is not computed by sinklab (it builds none, linear and "
                                "llama3); refused rather than approximated");
  }
  for (const auto& [key, value] : s.items())
    if (!known.count(key) && !value.is_null())
      config.fail("rope_scaling",
                  "field \"" + key + "\" is not read for rope_type " + type + "; refused rather than ignored");
}

}  // namespace sinklab
