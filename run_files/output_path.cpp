#include "run_files/output_path.h"

#include <algorithm>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "run_files/run_folder.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(std::string_view what, const fs::path& path, const std::string& reason) {
  throw OutputPathError(std::string(what) + ": " + path.string() + " " + reason);
}

// The nearest run folder that is `dir` or holds it, if any.
std::optional<fs::path> enclosing_run_folder(fs::path dir) {
  for (;; dir = dir.parent_path()) {
    if (inspect_run_folder(dir) != RunFolderState::empty) return dir;
    if (dir == dir.parent_path()) return std::nullopt;
  }
}

bool is_at_or_below(const fs::path& p, const fs::path& root) {
  const auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end();
}

// Follows `path` as the kernel will when writing it: every symlinked folder on the way is resolved in turn
// (so ".." after a link goes where the kernel goes), and refused where the rule forbids links. A symlink
// as the last name of a file output stays unresolved: it is replaced, not followed.
fs::path resolve_for_writing(const fs::path& path, OutputKind kind, std::string_view what, const fs::path& within) {
  std::vector<fs::path> parts;
  for (const fs::path& part : path.relative_path())
    if (!part.empty() && part != ".") parts.push_back(part);
  fs::path at = path.is_absolute() ? path.root_path() : fs::current_path();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "..") {
      at = at.parent_path();
      continue;
    }
    const fs::path next = at / parts[i];
    const bool last = i + 1 == parts.size();
    const std::string here = non_regular_file_at(next);
    if (here == "a symbolic link" && !(last && kind == OutputKind::file)) {
      const std::string link = last ? "is a symbolic link" : "goes through " + next.string() + ", a symbolic link";
      const std::string remove = "; sinklab writes there only through real folders (remove the link)";
      if (const auto run = enclosing_run_folder(at))
        refuse(what, path, link + " inside the run folder " + run->string() + remove);
      if (!within.empty() && is_at_or_below(at, within))
        refuse(what, path, link + " inside the output folder " + within.string() + remove);
      std::error_code ec;
      const fs::path target = fs::canonical(next, ec);
      if (ec) refuse(what, path, link + " that cannot be followed (" + ec.message() + ")");
      at = target;
      continue;
    }
    if (!last && !here.empty() && here != "a folder")
      refuse(what, path, "goes through " + next.string() + ", which is " + here + ", not a folder");
    at = next;
  }
  return at;
}

}  // namespace

void check_output_path(const fs::path& path, OutputKind kind, std::string_view what, const fs::path& within) {
  if (path.empty()) throw OutputPathError(std::string(what) + ": the output path is empty");
  if (path == "-") refuse(what, path, "is not a file name: sinklab writes outputs to files, not to standard output");
  std::error_code ec;
  const fs::path root = within.empty() ? fs::path() : fs::weakly_canonical(fs::absolute(within), ec);
  const fs::path at = resolve_for_writing(path, kind, what, root);

  const std::string here = non_regular_file_at(at);
  if (kind == OutputKind::file && !here.empty() && here != "a symbolic link")
    refuse(what, path, "is " + here + "; sinklab writes outputs only to regular files (choose a file name)");
  if (kind == OutputKind::folder) {
    if (here.empty() && fs::exists(fs::symlink_status(at, ec)))
      refuse(what, path, "is a file, not a folder");
    if (!here.empty() && here != "a folder")
      refuse(what, path, "is " + here + ", not a folder; sinklab writes outputs only into real folders");
  }

  // Nothing a run owns, in any run folder on the way: the name right below a run folder decides.
  for (fs::path p = at; p.has_relative_path(); p = p.parent_path()) {
    const std::string name = p.filename().string();
    if (!is_run_owned_name(name) || inspect_run_folder(p.parent_path()) == RunFolderState::empty) continue;
    refuse(what, path, "is one of the run's own files (" + name + " in the run folder " + p.parent_path().string() +
                           "); write the output elsewhere");
  }
}

}  // namespace sinklab
