#pragma once
// What the collector and the output writer hand each probe's hooks (probe_registration.h): one row of
// one head, one N entry of that row's top-N scan, and the finished results with the output folder.
#include <cstddef>
#include <filesystem>
#include <string>

#include "probes/distance_bound.h"
#include "probes/expected_distance.h"
#include "probes/probe_context.h"
#include "probes/probe_results.h"
#include "probes/probe_workspace.h"
#include "probes/sensitivity_rows.h"
#include "probes/violation_log.h"

namespace sinklab::probes {

// Row t of one head in one pass: query t sees n = t + 1 keys.
struct ProbeRow {
  const ProbeSettings& settings;
  ProbeResults& results;  // heads run in parallel: write only this row's or head's slots
  const RowKind& rows;
  const SensitivityRows& sensitivity;  // P5's row map
  ProbeWorkspace& ws;                  // this thread's buffers: ws.a = the row's weights, ws.q = its query, ws.x
  ViolationLog& log;
  const float* weights;  // the row's n weights
  const float* keys;     // the head's keys [L, D]
  const double* params;  // the head's learned normalizer parameters (null: none)
  int layer, head, window, t, n, L, D, dim;
  bool at_max;       // L is the longest length
  bool sampled;      // one of the rows E_mc and P5 sample (t + 1 divisible by sample_stride(L))
  bool sums_to_one;  // the weights sum to 1 within 1e-4
  double q_norm, max_key_norm;  // |q_t| and max |k_s| over the visible keys
  double t_model;               // the model's temperature / logit scale
  std::size_t index;            // results.row_index(layer, head, window, t)
};

// One N below n of the row's top-N scan (ws.order: the row's keys by weight, ties to the lower index).
struct ProbeEntry {
  const ProbeRow& row;
  const LengthPlan& plan;  // the pass's length and all its entries
  const NEntry& e;         // this entry's N and what it feeds
  DistanceSums& sums;      // [entry][layer][head][window]
  const DistanceTerms& terms;
  const ExpectationBounds& bounds;
  const TopSetScan& scan;  // grown to e.N
};

// The finished results and where the files go.
struct ProbeOutput {
  const ProbeResults& r;
  const ProbeSettings& s;
  const ProbeContext& context;
  std::filesystem::path out;      // the output folder
  std::filesystem::path figures;  // absolute: out/figures
  // 'absolute path of out/name', quoted for a gnuplot script
  std::string csv(const std::string& name) const {
    return "'" + (std::filesystem::absolute(out) / name).string() + "'";
  }
  const char* vectors() const { return s.vectors == VectorKind::value ? "value" : "hidden"; }
};

}  // namespace sinklab::probes
