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
#include "core/system_memory.h"  // available_memory(), used with the estimate
#include "config_loading/run_config.h"

namespace sinklab {

struct MemoryEstimate {
  double parameters = 0;      // bytes: weights, their gradients and two optimizer moments
  double activations = 0;     // the per-step arena: training step (values + gradients) or an eval chunk
  double eval_set = 0;        // the fixed evaluation set and the training batch buffers
  double attention_maps = 0;  // per-(layer, head) T x T accumulators of the final evaluation
  double snapshots = 0;       // the attention snapshots a run keeps (analysis.snapshot_*), see snapshot_count
  double process = 0;         // the binary, its libraries and thread stacks
  double total() const { return parameters + activations + eval_set + attention_maps + snapshots + process; }
};

// The most attention snapshots a run holds at once: one per analysis.snapshot_every steps up to
// train.max_steps and one at the final step, at most analysis.snapshot_limit + 1 when it thins them
// (stats/attention_snapshots.h); 0 without snapshots.
double snapshot_count(const RunConfig& config);

MemoryEstimate estimate_memory(const RunConfig& config);

// Throws a ConfigError when the estimate exceeds `available_bytes` (nullopt: not checked). The message
// names the estimate, the available memory and the keys (with their values) that drive the largest
// part, and is placed at the first of those keys the user wrote.
void check_memory(const RunConfig& config, const KeyLocations& where, std::optional<double> available_bytes);

// "512 B", "1.5 KiB", "22.9 GiB", "812 GiB".
std::string format_bytes(double bytes);

}  // namespace sinklab
