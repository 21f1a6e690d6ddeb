#include "config_loading/config_writer.h"

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "config_loading/config_schema.h"
#include "core/fnv1a.h"

namespace sinklab {
namespace {

// Not part of this config's text: a misplaced key (a softmax run has no relu divisor) or a later key
// at its default (FieldSpec::omit_at_default).
bool left_out(const FieldSpec& field, const RunConfig& config) {
  if (field.misplaced && !field.misplaced(config).empty()) return true;
  return field.omit_at_default && field.emit(config) == field.emit(RunConfig{});
}

}  // namespace

std::string to_yaml(const RunConfig& config) {
  YAML::Node root(YAML::NodeType::Map);
  for (const auto& field : config_fields()) {
    if (left_out(field, config)) continue;
    // Walk down the dotted path, creating sections in table order (yaml-cpp keeps insertion order).
    YAML::Node node = root;
    std::string_view rest = field.path;
    for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      const std::string key(rest.substr(0, dot));
      YAML::Node child = node[key];
      if (!child.IsDefined()) child = YAML::Node(YAML::NodeType::Map);
      node.reset(child);  // reset() rebinds the handle; operator= would overwrite the node's content
      rest.remove_prefix(dot + 1);
    }
    node[std::string(rest)] = field.emit(config);
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

uint64_t config_hash(const RunConfig& config) { return fnv1a(to_yaml(config)); }

uint64_t model_shaping_hash(const RunConfig& config, int input_dim, int output_dim, int seq_len) {
  std::string text;
  for (const auto& field : config_fields()) {
    if (!field.path.starts_with("model.")) continue;
    if (left_out(field, config)) continue;  // as to_yaml: not part of this model
    // Where the first weights came from changes no parameter's name or shape and nothing the network
    // computes: a checkpoint of a run started from a file loads into the same config without it. The
    // config hash (resuming) covers it.
    if (field.path == "model.init_from") continue;
    text += field.path + ": " + field.emit(config) + "\n";
  }
  // The task's widths and length size the input projection, output head and positions.
  text += "input_dim: " + std::to_string(input_dim) + "\noutput_dim: " + std::to_string(output_dim) +
          "\nseq_len: " + std::to_string(seq_len) + "\n";
  return fnv1a(text);
}

}  // namespace sinklab
