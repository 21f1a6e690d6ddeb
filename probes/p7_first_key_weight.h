#pragma once
// Probe P7, the attention sink against vanishing attention: per row at the longest L, the weight on the
// first key a_0 (BOS, where sinks form) and the share of keys the row effectively spreads over,
// exp(H(p)) / n with p = a / sum a (1: uniform, the vanishing attention of P1; 1/n: one key). Per head
// and n-bin [2^j, 2^(j+1)) the medians show whether a head escapes vanishing by holding weight on the
// sink as n grows. Rows of zero mass have no share (an empty cell). Writes sink.csv and figures/sink.gp.
#include "probes/probe_registration.h"

namespace sinklab::probes {

ProbeRegistration first_key_weight_probe();

}  // namespace sinklab::probes
