#pragma once
// The rule for `name`, which names the run folder (runs/<name>-seed<seed>) and appears in summaries:
// one path component that is safe to create, list and type.
#include <cstddef>
#include <string>
#include <string_view>

namespace sinklab {

// Longest allowed name in bytes: runs/<name>-seed<20 digits> stays far below the 255-byte limit of
// a file name on common filesystems.
inline constexpr std::size_t kMaxRunNameBytes = 100;

// Why `name` cannot name a run ("must not be empty", "must be a single folder name: no '/'", ...), or ""
// when it can. The name must be valid UTF-8 (checked by the loader first), 1..kMaxRunNameBytes bytes, free
// of control characters, without '/' or '\', not '.' or '..', and must not start with '-' (a folder
// named like a flag is easy to mistype in a shell).
std::string run_name_problem(std::string_view name);

}  // namespace sinklab
