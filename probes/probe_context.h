#pragma once
// How probes.md names what was probed: the model, its rows, the wall time and the command line.
#include <string>

#include "probes/probe_results.h"

namespace sinklab::probes {

struct ProbeContext {
  std::string model_name;  // "synthetic" or the run folder
  RowKind rows;
  double seconds = 0.0;    // wall time of the probes (forward passes included)
  std::string command;     // the command line, for probes.md
};

}  // namespace sinklab::probes
