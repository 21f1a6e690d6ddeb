#pragma once
// Learning rate at a step (0-based): constant; warmup (linear from lr/warmup to lr over warmup_steps,
// then constant); cosine (the same warmup, then cosine decay to min_lr at max_steps).
#include "config_loading/run_config.h"

namespace sinklab {

double learning_rate(const OptimizerConfig& config, int64_t step, int64_t max_steps);

// True when the rate of some step depends on max_steps (cosine): a run then cannot be extended to more
// steps and stay the run trained for them from the start.
bool schedule_depends_on_max_steps(const OptimizerConfig& config);

}  // namespace sinklab
