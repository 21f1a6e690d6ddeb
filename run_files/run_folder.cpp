#include "run_files/run_folder.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/io/file_read.h"
#include "core/io/file_write.h"
#include "run_files/output_path.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

// Every name a run writes into its folder, summary.json first (cleared first, so a crash midway never leaves a
// "finished" run); their temporaries (core/io/file_write.h: "<name>.<pid>-<random>.tmp", or "<name>.tmp" of earlier
// versions) are run files too. `marks_run`: its presence makes the folder a run folder.
// `cleared`: `train --force` removes it.
struct RunFile {
  std::string_view name;
  bool marks_run, cleared;
};
constexpr std::array<RunFile, 9> kRunFiles = {{
    {"summary.json", true, true},
    {"checkpoint.bin", true, true},
    {"metrics.jsonl", true, true},
    {"run.json", true, true},
    {"config.yaml", true, true},
    {"attention", true, true},  // a folder of .npy maps
    {"attention_snapshots.npz", true, true},
    // compare's log of the `train` child: opened by compare before the child starts, so the child's
    // --force must not unlink it; compare clears the folder itself before a fresh start.
    {"train.log", false, false},
    {".lock", false, false},  // the run folder's lock (run_files/run_folder_lock.h), held while clearing
}};

bool exists_here(const fs::path& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

const RunFile* run_file_named(std::string_view name) {
  const auto it = std::find_if(kRunFiles.begin(), kRunFiles.end(), [&](const RunFile& f) { return f.name == name; });
  return it == kRunFiles.end() ? nullptr : &*it;
}

}  // namespace

RunFolderState inspect_run_folder(const fs::path& dir) {
  std::error_code ec;  // a dangling summary.json link is no finished run
  if (fs::exists(dir / "summary.json", ec)) return RunFolderState::finished;
  for (const RunFile& f : kRunFiles)
    if (f.marks_run && exists_here(dir / f.name)) return RunFolderState::unfinished;
  return RunFolderState::empty;
}

bool is_run_owned_name(std::string_view name) {
  const std::string final_name = final_name_of_temporary(name);  // a temporary of any writer (core/io/file_write.h)
  return run_file_named(final_name.empty() ? name : std::string_view(final_name)) != nullptr;
}

void remove_run_file_temporaries(const fs::path& dir) {
  std::vector<fs::path> temporaries;  // listed first, removed after
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const RunFile* f = run_file_named(final_name_of_temporary(it->path().filename().string()));
    if (f != nullptr && f->cleared) temporaries.push_back(it->path());
  }
  if (!fs::is_symlink(dir / "attention", ec))  // the maps' folder holds nothing but what a run writes
    for (fs::directory_iterator it(dir / "attention", ec), end; !ec && it != end; it.increment(ec))
      if (!final_name_of_temporary(it->path().filename().string()).empty()) temporaries.push_back(it->path());
  for (const fs::path& path : temporaries) fs::remove_all(path);
}

namespace {

// Removes a folder that another command may be writing into at this moment (a `report` into the run's
// report/): removing it in place races with the files that command creates (remove_all then fails with
// "directory not empty" or "no such file"). Renamed aside first, it is out of every writer's reach, and a
// writer still at work finds its folder gone and says so.
void remove_folder_beside_writers(const fs::path& folder) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(folder, ec))) return;
  const fs::path aside = folder.parent_path() / ("." + folder.filename().string() + "." +
                                                 std::to_string(::getpid()) + ".cleared");
  fs::remove_all(aside);  // left by a --force of this pid number that was killed midway
  fs::rename(folder, aside);
  fs::remove_all(aside);
}

}  // namespace

void clear_run_files(const fs::path& dir) {
  for (const RunFile& f : kRunFiles)
    if (f.cleared) fs::remove_all(dir / f.name);
  remove_run_file_temporaries(dir);
  // What `eval`, `export` and `report` wrote by default describes the run being replaced.
  for (std::string_view name : {"eval", "export", "report"}) remove_folder_beside_writers(dir / name);
}

void check_new_run_folder(const std::filesystem::path& dir, const std::filesystem::path& source_config,
                          const std::string& resolved_config, bool force, const std::string& unfinished_hint) {
  check_output_path(dir, OutputKind::folder, "--out");
  const std::filesystem::path own = dir / "config.yaml";
  if (std::filesystem::exists(own) && std::filesystem::equivalent(own, source_config)) {
    // The config loader read this file already, within its 1 MiB limit; twice that means it changed since.
    const std::string text = read_regular_file(own, 2 << 20, "config file");
    if (text != resolved_config)
      throw std::invalid_argument("--out " + dir.string() + " would overwrite the config file it reads (" +
                                  source_config.string() + ") with the resolved config; choose another --out");
  }
  if (force) return;
  switch (inspect_run_folder(dir)) {
    case RunFolderState::empty: return;
    case RunFolderState::finished:
      throw std::invalid_argument("--out " + dir.string() +
                                  " already holds a finished run (summary.json); pass --force to overwrite");
    case RunFolderState::unfinished:
      throw std::invalid_argument("--out " + dir.string() + " holds an unfinished run; " + unfinished_hint);
  }
}

}  // namespace sinklab
