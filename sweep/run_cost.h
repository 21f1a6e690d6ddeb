#pragma once
// How long a run is expected to take, in arbitrary units, before it runs: a multiply-add count of one
// training step times the step limit. Only its order matters: `compare --mpi` hands out the longest
// runs first so that the last one to finish is a short one (docs/cluster.md).
#include <cstddef>
#include <vector>

#include "config_loading/config_loader.h"
#include "config_loading/run_config.h"
#include "sweep/sweep_plan.h"

namespace sinklab::sweep {

// Multiply-adds of one forward pass of one step: per layer and position the Q, K, V, O projections,
// the MLP and the T scores and T weighted values of every head, plus the token embedding and logits.
double step_cost(const RunConfig& config);

// step_cost x train.max_steps: the upper bound of a run's work (a stop rule may end it earlier).
double expected_run_cost(const RunConfig& config);

// Each run's expected cost, its config loaded with its overrides as `train` will load it (the sweep
// has been validated, so this does not fail for a well-formed sweep).
std::vector<double> expected_run_costs(const std::vector<PlannedRun>& runs, const ConfigVocabulary& vocab);

// Indices of `costs` from the largest to the smallest; equal costs keep plan order.
std::vector<std::size_t> longest_first(const std::vector<double>& costs);

}  // namespace sinklab::sweep
