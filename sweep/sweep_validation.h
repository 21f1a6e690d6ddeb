#pragma once
// Checks every planned run against its config before anything runs: each `set` and grid key must be a
// valid config path with a valid value for that variant's config, as the configs loader judges it.
#include <vector>

#include "config_loading/config_loader.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"

namespace sinklab::sweep {

// The overrides of a run as `key=value` strings, the form `sinklab train --set` and the loader take.
std::vector<std::string> override_strings(const PlannedRun& run);

// Loads each run's config with its overrides. The first ConfigError becomes a SweepError prefixed with
// the sweep file, the line of the offending key and the variant (or the `compare --set` it came from),
// keeping the loader's did-you-mean.
// Runs whose seed no override sets get the config's seed. `vocab` as in load_run_config (an empty
// list is not checked). With `jobs` runs at a time, the `jobs` largest memory estimates together must
// fit in the available memory (config_loading/memory_estimate.h), else a SweepError names --jobs and the sizes.
void validate_sweep(const SweepSpec& spec, std::vector<PlannedRun>& runs, const ConfigVocabulary& vocab, int jobs = 1);

}  // namespace sinklab::sweep
