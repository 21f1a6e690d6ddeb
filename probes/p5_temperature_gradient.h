#pragma once
// Probe P5, how the row's gradient grows as the temperature falls: g = |N((l + eps v)/T) - N(l/T)| / eps
// for a seeded random unit direction v per sampled row at the longest L, on the raw logits l_k = q . k_k
// and the model's own row map (sensitivity_rows.h), checked against the bound that map guarantees.
// Writes gradient.csv and figures/gradient.gp.
#include "probes/probe_registration.h"

namespace sinklab::probes {

ProbeRegistration temperature_gradient_probe();

}  // namespace sinklab::probes
