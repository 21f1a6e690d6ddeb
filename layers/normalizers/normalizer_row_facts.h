#pragma once
// What a normalizer declares about its rows for the attention probes (probes/), on its own
// registration: the facts the probes' bounds rest on, so that no probe tests a normalizer by its name.
#include <string>

namespace sinklab {

// How far the row moves when its logits move (the probes' P5 bound on g = |N(l + eps v) - N(l)| / eps).
enum class LogitLipschitz {
  unknown,           // nothing beyond the row mass (rows on the simplex: g <= sqrt(2)/eps)
  softmax,           // softmax(s / T): Jacobian norm <= 1/2, so g <= 1/(2T)
  log_keys_softmax,  // softmax(s_h ln(n) s / T), s_h the head's first parameter: g <= |s_h| ln(n)/(2T)
  projection,        // the Euclidean projection of s / T onto the simplex (1-Lipschitz): g <= 1/T
};

struct NormalizerRowFacts {
  // Rows are softmax(s / t) of the scaled logits s and nothing else (no slot, no gate): the paper's
  // vanishing bounds (P1) hold, and P5 perturbs the spec's tempered softmax itself.
  bool softmax_of_scaled_logits = false;
  std::string temperature_option;  // the option t is read from ("": t = 1)
  LogitLipschitz lipschitz = LogitLipschitz::unknown;
};

}  // namespace sinklab
