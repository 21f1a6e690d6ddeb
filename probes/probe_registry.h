#pragma once
// The one list of probe plug-ins, in the order their rows appear in probes.md (probe_registry.cpp).
#include <vector>

#include "probes/probe_registration.h"

namespace sinklab::probes {

const std::vector<ProbeRegistration>& probe_registry();

}  // namespace sinklab::probes
