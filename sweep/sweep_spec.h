#pragma once
// A sweep file (see docs/compare.md) parsed into plain structs. Parsing checks the sweep file's own
// shape (keys, types, files that must exist); whether override keys are valid config paths is checked
// later against each variant's config (sweep_validation.h).
#include <filesystem>
#include <string>
#include <vector>

namespace sinklab::sweep {

// One `key: value` override as written in the sweep file. `value` is the YAML scalar text, passed to
// `sinklab train --set key=value` unchanged.
struct Override {
  std::string key;
  std::string value;
  int line = 0;  // 1-based line in the sweep file
};

struct Variant {
  std::string name;
  std::filesystem::path config;  // resolved against the sweep file's folder
  std::vector<Override> set;     // document order
  int line = 0;
  // Optional, for the zoo comparison (docs/compare.md): the sink class letter (S, V, Z, C, G or U,
  // checked) whose acceptance gate the report evaluates, and the predicted outcome as free text.
  std::string sink_class;
  std::string predicted;
};

struct GridAxis {
  std::string key;
  std::vector<std::string> values;  // YAML scalar texts, document order
  int line = 0;
};

struct SweepSpec {
  std::string name;              // names the output folder: `name:`, else the file's stem made path-safe
  std::string title;             // for people (report title): `name:`, else the file's stem, '_' as spaces
  std::filesystem::path source;  // the sweep file itself
  std::vector<Variant> variants; // never empty after parsing (a lone `base` becomes one variant)
  std::vector<GridAxis> grid;    // document order
};

// Reads and checks a sweep file; throws SweepError naming file:line on any problem.
SweepSpec load_sweep_spec(const std::filesystem::path& path);

// Same, from YAML text; `source` is used for messages and to resolve relative config paths.
SweepSpec parse_sweep_spec(const std::string& yaml_text, const std::filesystem::path& source);

}  // namespace sinklab::sweep
