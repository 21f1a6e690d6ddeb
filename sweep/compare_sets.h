#pragma once
// `compare --set KEY=VALUE`: one override for every run of a sweep (a shorter train.max_steps, another
// task size) without writing a new sweep file. It may not touch a key the sweep itself varies or sets:
// the sweep file says what is compared, and a --set on one of its keys would silently undo it.
#include <string>
#include <vector>

#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"

namespace sinklab::sweep {

// The --set texts as overrides (line 0: they come from the command line), in order. Throws SweepError
// for one without '=' or a key, and for a key the sweep's grid or a variant's `set` gives, naming the key
// and its line in the sweep file. Whether the key is a config key is checked with the runs
// (validate_sweep), with the loader's did-you-mean.
std::vector<Override> parse_compare_sets(const std::vector<std::string>& texts, const SweepSpec& spec);

// Appends the --set overrides to every run's overrides, after the sweep's own.
void apply_compare_sets(const std::vector<Override>& sets, std::vector<PlannedRun>& runs);

// "--set a=1 --set b=2", or "no --set" for none: how messages show a sweep's --set list.
std::string describe_compare_sets(const std::vector<std::string>& texts);

}  // namespace sinklab::sweep
