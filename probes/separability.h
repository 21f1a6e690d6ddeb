#pragma once
// Probe P4, geometric separability (Theorem 2): with the vectors on the unit sphere (x_k / ||x_k||),
// c_k = a_k x_k, s = sum_{I_N} c_k and the radius r = min_{k not in I_N} ||s - c_k|| (every unselected
// token outside the ball), N_s = #{m in I_N : ||c_m - s|| < r}. Returns N_s / N. At N = 1, c_m = s, so
// the ratio is 1 whenever r > 0.
namespace sinklab::probes {

struct Separability {
  double ratio = 0.0;   // N_s / N
  double radius = 0.0;  // r
};

// unit_c [n, dim]: a_k x_k / ||x_k||; order from top_order; s [dim] is scratch. 1 <= N < n.
Separability separability(const double* unit_c, int n, int dim, const int* order, int N, double* s);

}  // namespace sinklab::probes
