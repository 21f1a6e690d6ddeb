#pragma once
// Probe P1, vanishing attention (Lemma 1): a softmax row over n keys with temperature T (the model's:
// its softmax temperature over the logit scale) and raw logits l_k = q . k_k satisfies
//   e^{-2 Delta / T} / n <= a_k <= e^{2 Delta / T} / n,   Delta = ||q|| max_k ||k_k||,
// because |l_k - l_m| <= 2 Delta. The probe reports n max a and n min a per row.
namespace sinklab::probes {

struct VanishingRow {
  double n_max_weight = 0.0, n_min_weight = 0.0;  // n max_k a_k, n min_k a_k
  double lower = 0.0, upper = 0.0;                // e^{-2 Delta / T}, e^{2 Delta / T} (times 1/n)
  bool violated = false;                          // a weight outside the bounds (relative slack 1e-4)
  bool upper_violated = false;
  // The lower bound e^{-2 Delta/T}/n is checked only where float32 weights can hold it (>= 1e-30):
  // below, a float softmax rounds the weight to 0 (or a subnormal) whatever the bound says.
  bool lower_checked = false;
};

inline constexpr double kSmallestCheckedWeight = 1e-30;

VanishingRow vanishing_row(const float* weights, int n, double query_norm, double max_key_norm, double temperature);

}  // namespace sinklab::probes
