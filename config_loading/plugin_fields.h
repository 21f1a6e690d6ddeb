#pragma once
// Config keys generated from plug-in registrations: every option a normalizer declares becomes a key
// under model.attention.normalizer, every option a task declares a key under task. Each key parses,
// range-checks, writes and documents itself from its OptionSpec, and belongs only with the plug-ins
// that declare it (FieldSpec::misplaced), so a plug-in's option needs no edit in configs/.
#include <vector>

#include "config_loading/config_schema.h"

namespace sinklab {

std::vector<FieldSpec> normalizer_option_fields();
std::vector<FieldSpec> task_option_fields();

// Sets every option of the chosen normalizer and task that the config left unset to its declared
// default, so the resolved config.yaml shows them. Unknown plug-in names are left alone (the
// consistency check reports them).
void resolve_plugin_defaults(RunConfig& config);

}  // namespace sinklab
