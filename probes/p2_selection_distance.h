#pragma once
// Probe P2, how far the selected and unselected tokens stay apart: d_true, d_r2 and d_max of the top-N
// set (distance_bound.h) and the random-selection expectation E_main, E_up, E_mc (expected_distance.h),
// per head as means over rows; N = 5 over every L, and --N at the longest L. It also feeds P3, which
// tests these means. Writes distance_vs_L.csv, distance_vs_N.csv and their figures.
#include "probes/probe_registration.h"

namespace sinklab::probes {

ProbeRegistration selection_distance_probe();

}  // namespace sinklab::probes
