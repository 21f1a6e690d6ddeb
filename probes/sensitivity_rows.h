#pragma once
// The row map probe P5 perturbs. For normalizers whose registration declares their rows a softmax of
// the scaled logits (softmax, and GPT-2) it is the spec's softmax(l / T) of the raw logits
// l_k = q . k_k; for any other normalizer of the zoo it is that normalizer's own row applied
// to l / T with the head's learned parameters (ssmax: softmax(s_h ln(n) l / T); sparsemax: the
// projection of l / T on the simplex), so that an ssmax or sparsemax model is probed through the
// attention it actually computes. Each map comes with the bound on g it guarantees (the registration's
// NormalizerRowFacts::lipschitz; layers/normalizers/normalizer_row_facts.h):
//   softmax: g <= 1/(2T) (Jacobian norm <= 1/2); ssmax: g <= |s_h| ln(n) / (2T) (a softmax at
//   temperature T / (s_h ln n)); sparsemax: g <= 1/T (a Euclidean projection is 1-Lipschitz);
//   every map onto the simplex: g <= sqrt(2)/eps (two distributions are at most sqrt 2 apart);
//   other rows: none.
#include <memory>
#include <string>

#include "probes/probe_results.h"
#include "layers/normalizers/normalizer.h"

namespace sinklab::probes {

class SensitivityRows {
 public:
  explicit SensitivityRows(const RowKind& rows);
  ~SensitivityRows();

  // out [n] = map((l + eps v) / T) for the causal row of n keys in a window of seq_len (v may be
  // null: eps ignored). params:
  // the head's learned parameters [params_per_head()] (null when there are none); scratch: [n]
  // (the shifted logits) + scratch_per_row(n) doubles.
  void apply(const double* l, const double* v, double eps, int n, int seq_len, double T, const double* params,
             double* out, double* scratch) const;
  // The bound on g = ||map(l + eps v) - map(l)|| / eps this map guarantees (+inf: none).
  double bound(int n, double T, double eps, const double* params) const;
  // The bound as probes.md states it.
  std::string bound_text() const;
  int params_per_head() const { return normalizer_ ? normalizer_->params_per_head() : 0; }
  int scratch_size(int n) const { return n + (normalizer_ ? normalizer_->scratch_per_row(n) : 0); }
  const std::string& name() const { return name_; }

 private:
  enum class Lipschitz { softmax, log_keys_softmax, projection, simplex, none };
  std::string name_;
  std::unique_ptr<Normalizer> normalizer_;  // null: the spec's plain softmax
  Lipschitz lipschitz_ = Lipschitz::softmax;
};

// g = ||p1 - p0|| / eps with p1 = map((l + eps v) / T) written to p1 [n]; p0 = map(l / T).
double row_sensitivity(const SensitivityRows& rows, const double* l, const double* v, const double* p0, int n,
                       int seq_len, double T, double eps, const double* params, double* p1, double* scratch);

}  // namespace sinklab::probes
