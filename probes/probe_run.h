#pragma once
// Running the probes: one forward pass per (length, window) through the model with a ProbeCollector
// observing every attention layer, or (synthetic) the same collector fed random rows with no model.
#include <ostream>
#include <vector>

#include "probes/probe_collector.h"
#include "probes/probe_windows.h"

namespace sinklab::probes {

// lengths ascending, the last <= source.length.
ProbeResults probe_model(const ProbeWindows& source, const ProbeSettings& settings, const std::vector<int>& lengths,
                         std::ostream& progress);

// Random rows: per (layer, window, head) q, k, v ~ N(0, 1) of width 16 and inputs of width 32 (from
// settings.seed), logit scale 1/4 (logits q.k of std 4, scaled std 1), softmax weights over the causal
// rows; a shorter length reads the first rows of the longest.
struct SyntheticShape {
  int layers = 2, heads = 4, head_dim = 16, model_dim = 32;
};
ProbeResults probe_synthetic(const ProbeSettings& settings, const std::vector<int>& lengths,
                             const SyntheticShape& shape, std::ostream& progress);

}  // namespace sinklab::probes
