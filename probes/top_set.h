#pragma once
// The top-N set I_N of one attention row (probes P2-P4): keys ordered by weight, largest first, ties to
// the lower index, so I_N = order[0 .. N-1] for every N at once.
namespace sinklab::probes {

// Writes the `count` (<= n) heaviest keys of weights[0 .. n-1] to order[0 .. count-1]; order must hold n
// ints (it is used as scratch). Allocates nothing.
void top_order(const double* weights, int n, int count, int* order);

}  // namespace sinklab::probes
