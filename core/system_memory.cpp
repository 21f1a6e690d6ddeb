#include "core/system_memory.h"

// These read /proc and /sys (kernel files of size 0 that fstat calls regular), not user files: a plain
// stream is right here, core/io/file_read.h is for files a user can point at.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace sinklab {

namespace {

// The first number of a small file (a cgroup limit or usage); nothing for "max", a missing file or text.
std::optional<double> number_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  double value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

// limit - usage of one cgroup folder's files; nothing when it has no limit (v1 writes ~2^63 for none).
std::optional<double> headroom(const std::filesystem::path& dir, const char* limit_file, const char* usage_file) {
  const std::optional<double> limit = number_in(dir / limit_file);
  if (!limit || *limit >= 0x1p60) return std::nullopt;
  return std::max(0.0, *limit - number_in(dir / usage_file).value_or(0.0));
}

}  // namespace

std::optional<double> cgroup_memory_headroom(const std::filesystem::path& proc_self_cgroup,
                                             const std::filesystem::path& cgroup_root) {
  std::optional<double> least;
  const auto keep = [&least](std::optional<double> h) {
    if (h && (!least || *h < *least)) least = h;
  };
  std::ifstream in(proc_self_cgroup);
  for (std::string line; std::getline(in, line);) {
    // "hierarchy-id:controllers:path": v2 is "0::/path", v1's memory controller "N:memory:/path".
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::filesystem::path path = std::filesystem::path(line.substr(second + 1)).relative_path();
    if (controllers.empty()) keep(headroom(cgroup_root / path, "memory.max", "memory.current"));
    std::istringstream list(controllers);
    for (std::string c; std::getline(list, c, ',');)
      if (c == "memory")
        keep(headroom(cgroup_root / "memory" / path, "memory.limit_in_bytes", "memory.usage_in_bytes"));
  }
  return least;
}

std::optional<double> available_memory(const std::filesystem::path& meminfo,
                                       const std::filesystem::path& proc_self_cgroup,
                                       const std::filesystem::path& cgroup_root) {
  std::optional<double> available;
  std::ifstream in(meminfo);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("MemAvailable:")) continue;
    std::istringstream fields(line.substr(13));
    double kib = 0;
    if (fields >> kib) available = kib * 1024.0;  // the file says "kB" and means KiB
    break;
  }
  const std::optional<double> cgroup = cgroup_memory_headroom(proc_self_cgroup, cgroup_root);
  if (cgroup && (!available || *cgroup < *available)) return cgroup;
  return available;
}

}  // namespace sinklab
