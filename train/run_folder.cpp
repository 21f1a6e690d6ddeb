#include "train/run_folder.h"

#include <array>
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

void clear_run_files(const fs::path& dir) {
  for (std::string_view name : kRunFiles) {
    fs::remove_all(dir / name);
    fs::remove(dir / (std::string(name) + ".tmp"));
  }
}

}  // namespace sinklab
