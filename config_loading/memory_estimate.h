#pragma once
// How much memory a run will need, computed from its resolved config before anything is allocated, and
// the check that refuses a config which cannot fit (instead of std::bad_alloc or the OOM killer later).
//
// An upper-ish estimate, not an exact count: each part counts the buffers the trainer and the layers
// allocate (see the comments in memory_estimate.cpp), rounded up. All arithmetic is in double, so
// the largest values the schema allows cannot overflow.
#include <filesystem>
#include <optional>
#include <string>

#include "config_loading/key_locations.h"
#include "config_loading/run_config.h"

namespace sinklab {

struct MemoryEstimate {
  double parameters = 0;      // bytes: weights, their gradients and two optimizer moments
  double activations = 0;     // the per-step arena: training step (values + gradients) or an eval chunk
  double eval_set = 0;        // the fixed evaluation set and the training batch buffers
  double attention_maps = 0;  // per-(layer, head) T x T accumulators of the final evaluation
  double process = 0;         // the binary, its libraries and thread stacks
  double total() const { return parameters + activations + eval_set + attention_maps + process; }
};

MemoryEstimate estimate_memory(const RunConfig& config);

// What this process's cgroups (v2, or v1's memory controller) still allow: limit - usage, the least over
// the cgroups /proc/self/cgroup names; nullopt when none has a limit (containers and CI jobs do).
std::optional<double> cgroup_memory_headroom(const std::filesystem::path& proc_self_cgroup = "/proc/self/cgroup",
                                             const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

// The memory a run may use, in bytes: MemAvailable of a /proc/meminfo-format file, or the cgroup's
// headroom when that is less; nullopt when neither is known.
std::optional<double> available_memory(const std::filesystem::path& meminfo = "/proc/meminfo",
                                       const std::filesystem::path& proc_self_cgroup = "/proc/self/cgroup",
                                       const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

// Throws a ConfigError when the estimate exceeds `available_bytes` (nullopt: not checked). The message
// names the estimate, the available memory and the keys (with their values) that drive the largest
// part, and is placed at the first of those keys the user wrote.
void check_memory(const RunConfig& config, const KeyLocations& where, std::optional<double> available_bytes);

// "512 B", "1.5 KiB", "22.9 GiB", "812 GiB".
std::string format_bytes(double bytes);

}  // namespace sinklab
