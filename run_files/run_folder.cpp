#include "run_files/run_folder.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string_view>

namespace sinklab {
namespace {

namespace fs = std::filesystem;

// Every name a run writes, summary.json first; their ".tmp" twins are run files too.
constexpr std::array<std::string_view, 6> kRunFiles = {"summary.json", "checkpoint.bin", "metrics.jsonl",
                                                       "run.json",     "config.yaml",    "attention"};

}  // namespace

RunFolderState inspect_run_folder(const fs::path& dir) {
  if (fs::exists(dir / "summary.json")) return RunFolderState::finished;
  for (std::string_view name : kRunFiles)
    if (fs::exists(dir / name) || fs::is_symlink(dir / name)) return RunFolderState::unfinished;
  return RunFolderState::empty;
}

bool is_run_file(const fs::path& dir, const fs::path& path) {
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(dir, ec), target = fs::weakly_canonical(path, ec);
  for (std::string_view name : kRunFiles) {
    const fs::path own = folder / name;
    if (target == own || target == fs::path(own.string() + ".tmp")) return true;
    const auto [end, _] = std::mismatch(own.begin(), own.end(), target.begin(), target.end());
    if (end == own.end()) return true;  // inside attention/
  }
  return false;
}

void clear_run_files(const fs::path& dir) {
  for (std::string_view name : kRunFiles) {
    fs::remove_all(dir / name);
    fs::remove(dir / (std::string(name) + ".tmp"));
  }
  // What `eval`, `export` and `report` wrote by default describes the run being replaced.
  for (std::string_view name : {"eval", "export", "report"}) fs::remove_all(dir / name);
}

void check_new_run_folder(const std::filesystem::path& dir, const std::filesystem::path& source_config,
                          const std::string& resolved_config, bool force, const std::string& unfinished_hint) {
  const std::filesystem::path own = dir / "config.yaml";
  if (std::filesystem::exists(own) && std::filesystem::equivalent(own, source_config)) {
    std::ifstream in(own);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text != resolved_config)
      throw std::invalid_argument("--out " + dir.string() + " would overwrite the config file it reads (" +
                                  source_config.string() + ") with the resolved config; choose another --out");
  }
  if (force) return;
  switch (inspect_run_folder(dir)) {
    case RunFolderState::empty: return;
    case RunFolderState::finished:
      throw std::invalid_argument("--out " + dir.string() + " already holds a finished run (summary.json); pass --force to overwrite");
    case RunFolderState::unfinished:
      throw std::invalid_argument("--out " + dir.string() + " holds an unfinished run; " + unfinished_hint);
  }
}

}  // namespace sinklab
