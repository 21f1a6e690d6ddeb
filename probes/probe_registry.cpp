#include "probes/probe_registry.h"

#include "probes/p1_vanishing_weights.h"
#include "probes/p2_selection_distance.h"
#include "probes/p3_critical_n.h"
#include "probes/p4_separability.h"
#include "probes/p5_temperature_gradient.h"
#include "probes/p6_head_coverage.h"
#include "probes/p7_first_key_weight.h"

namespace sinklab::probes {

const std::vector<ProbeRegistration>& probe_registry() {
  static const std::vector<ProbeRegistration> probes{
      vanishing_weights_probe(),
      selection_distance_probe(),
      critical_n_probe(),
      separability_probe(),
      temperature_gradient_probe(),
      head_coverage_probe(),
      first_key_weight_probe(),
  };
  return probes;
}

}  // namespace sinklab::probes
