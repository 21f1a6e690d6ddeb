#pragma once
// Probe P6, how many heads cover the selection: with p = P4's median over heads of N_s / N at N = 16,
// the heads H for 99% coverage (1 - (1 - p)^H >= 0.99) and what 3 heads cover. A row of probes.md only;
// collects nothing of its own.
#include "probes/probe_registration.h"

namespace sinklab::probes {

ProbeRegistration head_coverage_probe();

}  // namespace sinklab::probes
