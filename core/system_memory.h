#pragma once
// How much memory this process may still use: the run's memory estimate (config_loading/memory_estimate.h)
// and the bounded file readers (core/io/file_read.h) refuse what would not fit, by name, instead of
// std::bad_alloc or the OOM killer later.
#include <filesystem>
#include <optional>

namespace sinklab {

// What this process's cgroups (v2, or v1's memory controller) still allow: limit - usage, the least over
// the cgroups /proc/self/cgroup names; nullopt when none has a limit (containers and CI jobs do).
std::optional<double> cgroup_memory_headroom(const std::filesystem::path& proc_self_cgroup = "/proc/self/cgroup",
                                             const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

// The memory a run may use, in bytes: MemAvailable of a /proc/meminfo-format file, or the cgroup's
// headroom when that is less; nullopt when neither is known.
std::optional<double> available_memory(const std::filesystem::path& meminfo = "/proc/meminfo",
                                       const std::filesystem::path& proc_self_cgroup = "/proc/self/cgroup",
                                       const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

}  // namespace sinklab
