#include "sweep/sweep_spec.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "config_loading/closest_match.h"
#include "config_loading/yaml_documents.h"
#include "core/io/file_read.h"
#include "report/sink_class.h"
#include "sweep/sweep_error.h"
#include "sweep/run_naming.h"

namespace sinklab::sweep {
namespace {

namespace fs = std::filesystem;

// " (did you mean 'x'?)" when `word` looks like a typo of one of `allowed`.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& allowed) {
  const auto match = closest_match(word, allowed);
  return match ? " (did you mean '" + *match + "'?)" : "";
}

// "normalizers_1x1.yaml" -> "normalizers 1x1". Only '_' (and control characters, which would break
// the report's Markdown heading) become spaces: '-' is part of numbers (3e-4).
std::string readable_stem(const fs::path& file) {
  std::string text = file.stem().string();
  for (char& c : text)
    if (c == '_' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return text;
}

class Parser {
 public:
  explicit Parser(fs::path source) : source_(std::move(source)) {}

  SweepSpec parse(const std::string& text) {
    if (const auto line = second_yaml_document_line(text))
      fail(*line, "a second YAML document starts here; a sweep file is one document");
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's own words for it are "bad file"
      fail(e.mark.line + 1,
           "YAML nested deeper than " + std::to_string(e.depth()) + " levels; a sweep file is a few levels deep");
    } catch (const YAML::ParserException& e) {
      fail(e.mark.line + 1, "invalid YAML: " + e.msg);
    }
    if (!root.IsMap()) fail(line_of(root), "a sweep file must be a mapping with keys name, base, variants, grid");

    SweepSpec spec;
    spec.source = source_;
    spec.name = sanitize_for_path(source_.stem().string());
    spec.title = readable_stem(source_);
    // std::optional because a default YAML::Node counts as a defined null value.
    std::optional<YAML::Node> base, variants, grid;
    std::set<std::string> seen;
    for (const auto& kv : root) {
      const std::string key = scalar(kv.first, "top-level key");
      if (!seen.insert(key).second) fail(line_of(kv.first), "duplicate key '" + key + "'");
      if (key == "name") {
        spec.name = scalar(kv.second, "name");
        check_name(spec.name, line_of(kv.second));
        spec.title = spec.name;
      } else if (key == "base") {
        base = kv.second;
      } else if (key == "variants") {
        variants = kv.second;
      } else if (key == "grid") {
        grid = kv.second;
      } else {
        fail(line_of(kv.first), "unknown key '" + key + "'" +
                                    did_you_mean(key, {"name", "base", "variants", "grid"}) +
                                    " (allowed: name, base, variants, grid)");
      }
    }

    fs::path base_path;
    if (base) base_path = config_path(*base, "base");
    if (variants && !variants->IsNull()) {
      parse_variants(*variants, base_path, spec);
    } else {
      if (base_path.empty()) fail(1, "needs 'base' (a config file) or a 'variants' list");
      spec.variants.push_back(Variant{base_path.stem().string(), base_path, {}, line_of(*base), "", ""});
    }
    if (!seen.count("name")) check_name(spec.name, 1);  // the file's own name names the output folder
    if (grid && !grid->IsNull()) parse_grid(*grid, spec);
    check_overlap(spec);
    return spec;
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw SweepError(source_.string() + ":" + std::to_string(line) + ": " + what);
  }

  static int line_of(const YAML::Node& node) { return node.Mark().line + 1; }

  std::string scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(line_of(node), what + " must be a single value, not a list or mapping");
    return node.Scalar();
  }

  void check_name(const std::string& name, int line) const {
    if (name.empty() || name == "." || name == ".." ||
        !std::all_of(name.begin(), name.end(), is_safe_path_char))
      fail(line, "name '" + name + "' must be a non-empty mix of letters, digits, '.', '_', '-' "
                 "(it names the output folder)");
    if (name.size() > kMaxNameBytes)
      fail(line, "name '" + name.substr(0, 20) + "...' has " + std::to_string(name.size()) +
                     " bytes; names may have at most " + std::to_string(kMaxNameBytes) +
                     " bytes (they become folder names)");
  }

  void check_key(const std::string& key, int line) const {
    const bool ok = !key.empty() && key.front() != '.' && key.back() != '.' &&
                    key.find("..") == std::string::npos &&
                    std::all_of(key.begin(), key.end(), [](char c) {
                      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
                    });
    if (!ok) fail(line, "'" + key + "' is not a config key path (expected e.g. optimizer.lr)");
  }

  fs::path config_path(const YAML::Node& node, const std::string& what) const {
    const fs::path written = scalar(node, what);
    const fs::path resolved = (source_.parent_path() / written).lexically_normal();
    std::error_code ec;
    if (fs::is_directory(resolved, ec))
      fail(line_of(node), what + " config file '" + written.string() + "' is a directory (" + resolved.string() +
                              "), not a config file");
    if (!fs::is_regular_file(resolved, ec))
      fail(line_of(node), what + " config file '" + written.string() + "' not found (looked for " +
                              resolved.string() + ")");
    return resolved;
  }

  void parse_variants(const YAML::Node& list, const fs::path& base_path, SweepSpec& spec) const {
    if (!list.IsSequence()) fail(line_of(list), "'variants' must be a list of {name, config, set}");
    if (list.size() == 0) fail(line_of(list), "'variants' is empty; remove it to run 'base' alone");
    std::set<std::string> names;
    for (const auto& item : list) {
      if (!item.IsMap()) fail(line_of(item), "each variant must be a mapping with name, config, set");
      Variant v;
      v.line = line_of(item);
      std::optional<YAML::Node> config;
      std::set<std::string> seen;
      for (const auto& kv : item) {
        const std::string key = scalar(kv.first, "variant key");
        if (!seen.insert(key).second) fail(line_of(kv.first), "duplicate key '" + key + "' in variant");
        if (key == "name") {
          v.name = scalar(kv.second, "variant name");
          check_name(v.name, line_of(kv.second));
        } else if (key == "config") {
          config = kv.second;
        } else if (key == "set") {
          v.set = parse_set(kv.second);
        } else if (key == "class") {
          v.sink_class = scalar(kv.second, "variant class");
          if (!parse_sink_class(v.sink_class))
            fail(line_of(kv.second), "variant key 'class' is '" + v.sink_class +
                                         "'; it must be one of the sink classes " + sink_class_letters() +
                                         " (docs/compare.md)");
        } else if (key == "predicted") {
          v.predicted = scalar(kv.second, "variant predicted");
        } else {
          fail(line_of(kv.first), "unknown variant key '" + key + "'" +
                                      did_you_mean(key, {"name", "config", "set", "class", "predicted"}) +
                                      " (allowed: name, config, set, class, predicted)");
        }
      }
      if (v.name.empty()) fail(v.line, "variant without a 'name'");
      if (!names.insert(v.name).second) fail(v.line, "two variants are named '" + v.name + "'");
      if (config) {
        v.config = config_path(*config, "variant '" + v.name + "'");
      } else if (!base_path.empty()) {
        v.config = base_path;
      } else {
        fail(v.line, "variant '" + v.name + "' has no 'config' and the sweep has no 'base'");
      }
      spec.variants.push_back(std::move(v));
    }
  }

  std::vector<Override> parse_set(const YAML::Node& map) const {
    std::vector<Override> out;
    if (map.IsNull()) return out;
    if (!map.IsMap()) fail(line_of(map), "'set' must be a mapping of config key paths to values");
    for (const auto& kv : map) {
      Override o{scalar(kv.first, "set key"), "", line_of(kv.first)};
      check_key(o.key, o.line);
      for (const auto& prev : out)
        if (prev.key == o.key) fail(o.line, "duplicate key '" + o.key + "' in set");
      o.value = scalar(kv.second, "set." + o.key);
      out.push_back(std::move(o));
    }
    return out;
  }

  void parse_grid(const YAML::Node& map, SweepSpec& spec) const {
    if (!map.IsMap()) fail(line_of(map), "'grid' must be a mapping of config key paths to value lists");
    for (const auto& kv : map) {
      GridAxis axis{scalar(kv.first, "grid key"), {}, line_of(kv.first)};
      check_key(axis.key, axis.line);
      for (const auto& prev : spec.grid)
        if (prev.key == axis.key) fail(axis.line, "duplicate grid key '" + axis.key + "'");
      if (kv.second.IsScalar()) {
        axis.values.push_back(kv.second.Scalar());  // `seed: 3` is a one-value axis
      } else if (kv.second.IsSequence()) {
        std::set<std::string> listed;  // a set, not a scan: long lists must not take quadratic time
        for (const auto& value : kv.second) {
          std::string text = scalar(value, "grid." + axis.key + " entry");
          if (!listed.insert(text).second) fail(line_of(value), "grid." + axis.key + " lists '" + text + "' twice");
          axis.values.push_back(std::move(text));
        }
      } else {
        fail(line_of(kv.second), "grid." + axis.key + " must be a list of values");
      }
      if (axis.values.empty())
        fail(axis.line, "grid." + axis.key + " is an empty list (it would expand to zero runs)");
      spec.grid.push_back(std::move(axis));
    }
  }

  // A key both fixed by a variant and swept by the grid has no single meaning.
  void check_overlap(const SweepSpec& spec) const {
    for (const auto& v : spec.variants)
      for (const auto& o : v.set)
        for (const auto& axis : spec.grid)
          if (axis.key == o.key)
            fail(o.line, "variant '" + v.name + "' sets '" + o.key + "', which the grid also sweeps (line " +
                             std::to_string(axis.line) + ")");
  }

  fs::path source_;
};

}  // namespace

SweepSpec parse_sweep_spec(const std::string& yaml_text, const std::filesystem::path& source) {
  return Parser(source).parse(yaml_text);
}

// A sweep file is a few kilobytes; the bound keeps /dev/zero or a huge file from being read at all.
constexpr uint64_t kMaxSweepFileBytes = 1 << 20;

SweepSpec load_sweep_spec(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw SweepError("sweep file '" + path.string() + "' not found");
  std::string text;
  try {
    text = read_regular_file(path, kMaxSweepFileBytes, "sweep file");
  } catch (const FileReadError& e) {
    throw SweepError(e.what());
  }
  return parse_sweep_spec(text, path);
}

}  // namespace sinklab::sweep
