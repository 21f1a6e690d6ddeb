#pragma once
// What the probes accumulate over every observed row, before they become files (probe_outputs.h).
// Sums are kept per (length, N entry, layer, head, window) so heads can run in parallel without sharing.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "probes/probe_settings.h"
#include "layers/model_config.h"

namespace sinklab::probes {

// One N of a length's pass and what it feeds.
struct NEntry {
  int N = 0;
  bool distance_file = false;  // P2: d_max, E_up and E_mc (distance_vs_L at N = 5, distance_vs_N at L max)
  bool separability = false;   // P4 (L max, N <= 64)
  bool critical = false;       // P3's grid
  bool monte_carlo = false;    // E_mc on the sampled rows
};

struct DistanceSums {
  double d_true = 0, d_r2 = 0, d_max = 0, e_main = 0, e_up = 0, e_mc = 0, separability = 0;
  int64_t rows = 0, mc_rows = 0, separability_rows = 0;
};

struct LengthPlan {
  int L = 0;
  std::vector<NEntry> entries;  // ascending N
};

// The softmax facts the P1 bound needs; other normalizers get "not applicable".
struct RowKind {
  bool softmax = true;       // plain softmax rows (no key-bias slot): P1 and d_max apply as stated
  double temperature = 1.0;  // the softmax option (T_model = temperature / logit scale)
  NormalizerConfig config;   // the model's normalizer with its options (P5 perturbs its rows)
};

struct ViolationRecord {
  std::string what;
  int layer = 0, head = 0, window = 0, row = 0, L = 0, N = 0;
  double value = 0, bound = 0;
};

// Invariant checks: how many were checked and failed. Each head counts its own, merged after the head.
struct ProbeCounters {
  int64_t checks_d_max = 0, checks_vanishing = 0, checks_separability = 0, checks_gradient = 0;
  int64_t vanishing_lower_unchecked = 0;  // P1 rows whose lower bound is below float32 (upper still checked)
  int64_t violations_d_max = 0, violations_vanishing = 0, violations_separability = 0, violations_gradient = 0;
  int64_t rows_seen = 0;

  int64_t violations() const {
    return violations_d_max + violations_vanishing + violations_separability + violations_gradient;
  }
  void add(const ProbeCounters& o) {
    checks_d_max += o.checks_d_max;
    checks_vanishing += o.checks_vanishing;
    checks_separability += o.checks_separability;
    checks_gradient += o.checks_gradient;
    vanishing_lower_unchecked += o.vanishing_lower_unchecked;
    violations_d_max += o.violations_d_max;
    violations_vanishing += o.violations_vanishing;
    violations_separability += o.violations_separability;
    violations_gradient += o.violations_gradient;
    rows_seen += o.rows_seen;
  }
};

struct ProbeResults : ProbeCounters {
  int layers = 0, heads = 0, windows = 0, max_len = 0;
  std::vector<LengthPlan> plans;
  // [plan][entry][layer][head][window], flattened by sums_index().
  std::vector<std::vector<DistanceSums>> sums;
  // P1 at L max, per row [layer][head][window][t]: n max a, n min a, e^{-2 Delta/T}, e^{2 Delta/T}.
  std::vector<float> n_max_weight, n_min_weight, lower, upper;
  std::vector<uint8_t> vanishing_violated;
  // P5 at L max: sums of g [temperature][eps][layer][head][window], rows [layer][head][window];
  // the standard deviation of each sampled row's raw logits [layer][head][window][t] (NaN: not sampled).
  std::vector<double> gradient_sums;
  std::vector<int64_t> gradient_rows;
  std::vector<float> logit_std;
  // A probe's own values, under its name, for a probe that keeps none of the above (sized by its setup hook).
  std::map<std::string, std::vector<double>> own;
  std::vector<ViolationRecord> first_violations;  // the first failures of the checks counted above
  std::size_t sums_index(int entry, int layer, int head, int window) const {
    return ((static_cast<std::size_t>(entry) * layers + layer) * heads + head) * windows + window;
  }
  std::size_t row_index(int layer, int head, int window, int t) const {
    return ((static_cast<std::size_t>(layer) * heads + head) * windows + window) * max_len + t;
  }
};

}  // namespace sinklab::probes
