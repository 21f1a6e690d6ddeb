#pragma once
// Probe P5, gradient sensitivity (Lemma 2): for raw logits l [n], a unit direction v [n], a temperature
// T and a step eps, g = ||softmax((l + eps v)/T) - softmax(l/T)|| / eps. The softmax Jacobian has
// spectral norm <= 1/2, so g <= 1/(2T); and two probability vectors are at most sqrt(2) apart, so
// g <= sqrt(2)/eps. Computed in double.
namespace sinklab::probes {

// out [n] = softmax((l + eps v) / T); v may be null (eps ignored).
void tempered_softmax(const double* l, const double* v, double eps, int n, double T, double* out);

// g from the unperturbed softmax p0 = softmax(l/T) (computed once per T) and scratch p1 [n].
double gradient_sensitivity(const double* l, const double* v, const double* p0, int n, double T, double eps,
                            double* p1);

}  // namespace sinklab::probes
