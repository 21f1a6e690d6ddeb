#include "cluster/run_messages.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace sinklab::cluster {
namespace {

using nlohmann::json;

json parse(const std::string& text, const char* what) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw std::runtime_error(std::string("malformed ") + what + " message");
  return j;
}

template <class T>
T field(const json& j, const char* key, const char* what) {
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw std::runtime_error(std::string("malformed ") + what + " message: field '" + key + "'");
  }
}

}  // namespace

std::string encode(const RunAssignment& run) {
  json overrides = json::array();
  for (const auto& [key, value] : run.overrides) overrides.push_back({key, value});
  return json{{"index", run.index},         {"id", run.id},   {"config", run.config.string()},
              {"overrides", overrides},     {"dir", run.dir.string()}, {"sweep_key", run.sweep_key}}
      .dump();
}

std::string encode(const RunResult& result) {
  return json{{"index", result.index},     {"signaled", result.signaled}, {"code", result.code},
              {"seconds", result.seconds}, {"resumed", result.resumed},   {"error", result.error},
              {"quarantined", result.quarantined}}
      .dump();
}

RunAssignment decode_assignment(const std::string& text) {
  const json j = parse(text, "run");
  RunAssignment run;
  run.index = field<std::size_t>(j, "index", "run");
  run.id = field<std::string>(j, "id", "run");
  run.config = field<std::string>(j, "config", "run");
  run.overrides = field<std::vector<std::pair<std::string, std::string>>>(j, "overrides", "run");
  run.dir = field<std::string>(j, "dir", "run");
  run.sweep_key = field<std::string>(j, "sweep_key", "run");
  return run;
}

RunResult decode_result(const std::string& text) {
  const json j = parse(text, "result");
  RunResult result;
  result.index = field<std::size_t>(j, "index", "result");
  result.signaled = field<bool>(j, "signaled", "result");
  result.code = field<int>(j, "code", "result");
  result.seconds = field<double>(j, "seconds", "result");
  result.resumed = field<bool>(j, "resumed", "result");
  result.error = field<std::string>(j, "error", "result");
  result.quarantined = field<std::vector<std::pair<std::string, std::string>>>(j, "quarantined", "result");
  return result;
}

}  // namespace sinklab::cluster
