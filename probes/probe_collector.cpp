#include "probes/probe_collector.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#ifdef SINKLAB_HAVE_OPENMP
#include <omp.h>
#endif

#include "probes/distance_bound.h"
#include "probes/probe_plan.h"
#include "probes/probe_registry.h"
#include "probes/top_set.h"

namespace sinklab::probes {
namespace {

// d_max is needed up to the largest N of the distance files.
int distance_file_n(const LengthPlan& plan) {
  int up_to = 0;
  for (const NEntry& e : plan.entries)
    if (e.distance_file) up_to = std::max(up_to, e.N);
  return up_to;
}

}  // namespace

int sample_stride(int L) { return std::max(1, L / 64); }

ProbeCollector::ProbeCollector(const ProbeSettings& settings, const std::vector<int>& lengths, int layers, int heads,
                               RowKind rows)
    : settings_(settings), rows_(std::move(rows)), sensitivity_(rows_) {
  if (lengths.empty()) throw std::invalid_argument("probe: no lengths to probe");
  ProbeResults& r = results_;
  r.layers = layers;
  r.heads = heads;
  r.windows = settings.windows;
  r.max_len = lengths.back();
  r.plans = plan_lengths(lengths, settings);
  for (const LengthPlan& p : r.plans)
    r.sums.emplace_back(p.entries.size() * static_cast<std::size_t>(layers) * heads * r.windows);
  for (const ProbeRegistration& p : probe_registry())
    if (p.setup) p.setup(r, settings);
}

ProbeCollector::~ProbeCollector() = default;

void ProbeCollector::on_attention(const AttentionView& view) {
  if (!view.queries || !view.keys || !view.values || !view.inputs)
    throw std::logic_error("probe: attention did not hand over q, k, v (wants_qkv)");
  if (view.batch != 1) throw std::logic_error("probe: one window per forward pass");
  if (view.seq_len != results_.plans[static_cast<std::size_t>(plan_)].L)
    throw std::logic_error("probe: pass length mismatch");
  const int dim = static_cast<int>(settings_.vectors == VectorKind::value ? view.head_dim : view.model_dim);
  int threads = 1;
#ifdef SINKLAB_HAVE_OPENMP
  threads = omp_get_max_threads();
#endif
  // Buffers once per thread (the first pass), sized for the longest length.
  while (static_cast<int>(workspaces_.size()) < threads)
    workspaces_.push_back(
        std::make_unique<ProbeWorkspace>(results_.max_len, dim, static_cast<int>(view.head_dim), sensitivity_));
  const int heads = static_cast<int>(view.heads);
#pragma omp parallel for schedule(dynamic, 1)
  for (int h = 0; h < heads; ++h) {
    int thread = 0;
#ifdef SINKLAB_HAVE_OPENMP
    thread = omp_get_thread_num();
#endif
    probe_head(view, h, *workspaces_[static_cast<std::size_t>(thread)]);
  }
}

// x [L, dim]: this head's values (head-major [H, 1, T, D]) or the attention input rows [T, C], their
// norms, and (for d_max) their pairwise distances. Returns the largest N d_max is tracked for.
int ProbeCollector::load_vectors(const AttentionView& view, int head, ProbeWorkspace& ws) const {
  const LengthPlan& plan = results_.plans[static_cast<std::size_t>(plan_)];
  const int L = plan.L, dim = ws.dim, D = static_cast<int>(view.head_dim);
  const float* source =
      settings_.vectors == VectorKind::value ? view.values + static_cast<int64_t>(head) * L * D : view.inputs;
  for (int k = 0; k < L; ++k) {
    for (int i = 0; i < dim; ++i)
      ws.x[static_cast<std::size_t>(k) * dim + i] = source[static_cast<int64_t>(k) * dim + i];
    ws.x_norm[static_cast<std::size_t>(k)] = euclidean_norm(&ws.x[static_cast<std::size_t>(k) * dim], dim);
  }
  const int track_up_to = distance_file_n(plan);
  if (track_up_to > 0)
    for (int k = 0; k < L; ++k)
      for (int m = 0; m < L; ++m) {
        double sq = 0.0;
        for (int i = 0; i < dim; ++i) {
          const double d = ws.x[static_cast<std::size_t>(k) * dim + i] - ws.x[static_cast<std::size_t>(m) * dim + i];
          sq += d * d;
        }
        ws.pairwise[static_cast<std::size_t>(k) * L + m] = static_cast<float>(std::sqrt(sq));
      }
  return track_up_to;
}

// The head's learned normalizer parameters, for P5's row map (null when it has none).
const double* ProbeCollector::load_params(const AttentionView& view, int head, ProbeWorkspace& ws) const {
  const int P = sensitivity_.params_per_head();
  if (P == 0) return nullptr;
  if (!view.head_params)
    throw std::logic_error("probe P5: the attention gave no parameters for the " + sensitivity_.name() + " rows");
  for (int p = 0; p < P; ++p) ws.head_params[static_cast<std::size_t>(p)] = view.head_params[head * P + p];
  return ws.head_params.data();
}

// The N entries below n: one top-N scan shared by every probe's on_entry, and the distance bound it
// guarantees, d_true <= d_max on rows that sum to 1 (checked for the distance files' N).
void ProbeCollector::scan_entries(const ProbeRow& row, int track_up_to, ProbeCounters& counts) {
  const LengthPlan& plan = results_.plans[static_cast<std::size_t>(plan_)];
  ProbeWorkspace& ws = row.ws;
  const int n = row.n;
  top_order(ws.a.data(), n, std::min(n, plan.entries.back().N), ws.order.data());
  ws.scan.start(ws.a.data(), ws.x.data(), n, ws.order.data(), ws.pairwise.data(), plan.L, track_up_to);
  for (std::size_t ei = 0; ei < plan.entries.size(); ++ei) {
    const NEntry& e = plan.entries[ei];
    if (e.N >= n) break;
    ws.scan.grow_to(e.N);
    const DistanceTerms d = ws.scan.terms(e.distance_file);
    const ExpectationBounds eb = expected_distance_bounds(ws.scan.c(), ws.scan.total(), n, ws.dim, e.N);
    DistanceSums& sums = results_.sums[static_cast<std::size_t>(plan_)]
                                      [results_.sums_index(static_cast<int>(ei), row.layer, row.head, row.window)];
    if (e.distance_file && row.sums_to_one) {
      ++counts.checks_d_max;
      if (d.d_true > d.d_max * (1.0 + 1e-6) + 1e-9) {
        ++counts.violations_d_max;
        log_.record({"d_true <= d_max", row.layer, row.head, row.window, row.t, row.L, e.N, d.d_true, d.d_max});
      }
    }
    const ProbeEntry entry{row, plan, e, sums, d, eb, ws.scan};
    for (const ProbeRegistration& p : probe_registry())
      if (p.on_entry) p.on_entry(entry, counts);
  }
}

void ProbeCollector::probe_head(const AttentionView& view, int head, ProbeWorkspace& ws) {
  const LengthPlan& plan = results_.plans[static_cast<std::size_t>(plan_)];
  const int L = plan.L, D = static_cast<int>(view.head_dim);
  const int track_up_to = load_vectors(view, head, ws);
  const double* params = load_params(view, head, ws);
  const float* weights = view.weights_block(0, head);
  const float* queries = view.queries + static_cast<int64_t>(head) * L * D;
  const float* keys = view.keys + static_cast<int64_t>(head) * L * D;
  const double t_model = rows_.temperature / view.logit_scale;
  const int stride = sample_stride(L);
  ProbeCounters counts;
  double max_key_norm = 0.0;
  for (int t = 0; t < L; ++t) {
    const int n = t + 1;
    const float* row = weights + static_cast<int64_t>(t) * L;
    double q_norm = 0.0, key_norm = 0.0;
    for (int i = 0; i < D; ++i) {
      ws.q[static_cast<std::size_t>(i)] = queries[static_cast<int64_t>(t) * D + i];
      q_norm += ws.q[static_cast<std::size_t>(i)] * ws.q[static_cast<std::size_t>(i)];
      key_norm += static_cast<double>(keys[static_cast<int64_t>(t) * D + i]) * keys[static_cast<int64_t>(t) * D + i];
    }
    max_key_norm = std::max(max_key_norm, std::sqrt(key_norm));  // over the visible keys 0 .. t
    double row_sum = 0.0;
    for (int k = 0; k < n; ++k) {
      ws.a[static_cast<std::size_t>(k)] = row[k];
      row_sum += row[k];
    }
    const ProbeRow view_of_row{settings_, results_, rows_, sensitivity_, ws, log_, row, keys, params, view.layer, head,
                               window_, t, n, L, D, ws.dim, L == results_.max_len, (t + 1) % stride == 0,
                               std::fabs(row_sum - 1.0) <= 1e-4, std::sqrt(q_norm), max_key_norm, t_model,
                               results_.row_index(view.layer, head, window_, t)};
    // Registry order; the shared scan runs when the first probe that reads it comes up.
    bool scanned = plan.entries.empty() || n <= plan.entries.front().N;
    for (const ProbeRegistration& p : probe_registry()) {
      if (p.on_entry && !scanned) {
        scan_entries(view_of_row, track_up_to, counts);
        scanned = true;
      }
      if (p.on_row) p.on_row(view_of_row, counts);
    }
  }
  counts.rows_seen = L;
  const std::lock_guard<std::mutex> lock(log_.mutex());
  results_.add(counts);
}

}  // namespace sinklab::probes
