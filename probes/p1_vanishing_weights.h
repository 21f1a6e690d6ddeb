#pragma once
// Probe P1, vanishing attention: n max a and n min a of every row at the longest length against the
// bounds e^{+-2 Delta/T_model} (vanishing_bound.h), checked on rows whose normalizer declares them a
// softmax of the scaled logits. Writes vanishing.csv and figures/vanishing.gp.
#include "probes/probe_registration.h"

namespace sinklab::probes {

ProbeRegistration vanishing_weights_probe();

}  // namespace sinklab::probes
