#include "probes/probe_collector.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#ifdef SINKLAB_HAVE_OPENMP
#include <omp.h>
#endif

#include "probes/distance_bound.h"
#include "probes/expected_distance.h"
#include "probes/probe_plan.h"
#include "probes/sensitivity_rows.h"
#include "probes/separability.h"
#include "probes/top_set.h"
#include "probes/vanishing_bound.h"
#include "core/rng.h"

namespace sinklab::normlimits {
namespace {

constexpr std::size_t kMaxRecorded = 20;  // failures listed in probes.md; all are counted

uint64_t mix(uint64_t h, uint64_t v) {  // splitmix64 step: seeds that differ in any field differ everywhere
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

double norm(const double* v, int dim) {
  double s = 0.0;
  for (int i = 0; i < dim; ++i) s += v[i] * v[i];
  return std::sqrt(s);
}

}  // namespace

int sample_stride(int L) { return std::max(1, L / 64); }

// One thread's buffers, sized for the longest length and the vector width.
struct ProbeCollector::Workspace {
  Workspace(int max_len, int dim, int head_dim, const SensitivityRows& sensitivity)
      : dim(dim),
        x(static_cast<std::size_t>(max_len) * dim),
        x_norm(static_cast<std::size_t>(max_len)),
        unit_c(static_cast<std::size_t>(max_len) * dim),
        pairwise(static_cast<std::size_t>(max_len) * max_len),
        a(static_cast<std::size_t>(max_len)),
        logits(static_cast<std::size_t>(max_len)),
        direction(static_cast<std::size_t>(max_len)),
        p0(static_cast<std::size_t>(max_len)),
        p1(static_cast<std::size_t>(max_len)),
        row_scratch(static_cast<std::size_t>(sensitivity.scratch_size(max_len))),
        head_params(static_cast<std::size_t>(sensitivity.params_per_head())),
        q(static_cast<std::size_t>(head_dim)),
        s(static_cast<std::size_t>(dim)),
        order(static_cast<std::size_t>(max_len)),
        scan(max_len, dim),
        mc(max_len, dim) {}
  int dim;
  std::vector<double> x, x_norm, unit_c;
  std::vector<float> pairwise;
  std::vector<double> a, logits, direction, p0, p1, row_scratch, head_params, q, s;
  std::vector<int> order;
  TopSetScan scan;
  MonteCarloScratch mc;
};

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
  const std::size_t rows_total = static_cast<std::size_t>(layers) * heads * r.windows * r.max_len;
  r.n_max_weight.assign(rows_total, NAN);
  r.n_min_weight.assign(rows_total, NAN);
  r.lower.assign(rows_total, NAN);
  r.upper.assign(rows_total, NAN);
  r.vanishing_violated.assign(rows_total, 0);
  r.logit_std.assign(rows_total, NAN);
  r.gradient_sums.assign(settings.temperatures.size() * settings.eps.size() * static_cast<std::size_t>(layers) * heads * r.windows, 0.0);
  r.gradient_rows.assign(static_cast<std::size_t>(layers) * heads * r.windows, 0);
}

ProbeCollector::~ProbeCollector() = default;

ProbeCollector::Workspace& ProbeCollector::workspace(int thread) {
  return *workspaces_[static_cast<std::size_t>(thread)];
}

void ProbeCollector::record(ViolationRecord v) {
  const std::lock_guard<std::mutex> lock(record_mutex_);
  if (results_.first_violations.size() < kMaxRecorded) results_.first_violations.push_back(std::move(v));
}

void ProbeCollector::on_attention(const AttentionView& view) {
  if (!view.queries || !view.keys || !view.values || !view.inputs)
    throw std::logic_error("probe: attention did not hand over q, k, v (wants_qkv)");
  if (view.batch != 1) throw std::logic_error("probe: one window per forward pass");
  if (view.seq_len != results_.plans[static_cast<std::size_t>(plan_)].L) throw std::logic_error("probe: pass length mismatch");
  const int dim = static_cast<int>(settings_.vectors == VectorKind::value ? view.head_dim : view.model_dim);
  int threads = 1;
#ifdef SINKLAB_HAVE_OPENMP
  threads = omp_get_max_threads();
#endif
  // Buffers once per thread (the first pass), sized for the longest length.
  while (static_cast<int>(workspaces_.size()) < threads)
    workspaces_.push_back(std::make_unique<Workspace>(results_.max_len, dim, static_cast<int>(view.head_dim), sensitivity_));
  const int heads = static_cast<int>(view.heads);
#pragma omp parallel for schedule(dynamic, 1)
  for (int h = 0; h < heads; ++h) {
    int thread = 0;
#ifdef SINKLAB_HAVE_OPENMP
    thread = omp_get_thread_num();
#endif
    probe_head(view, h, workspace(thread));
  }
}

void ProbeCollector::probe_head(const AttentionView& view, int head, Workspace& ws) {
  ProbeResults& r = results_;
  const LengthPlan& plan = r.plans[static_cast<std::size_t>(plan_)];
  std::vector<DistanceSums>& sums = r.sums[static_cast<std::size_t>(plan_)];
  const int L = plan.L, layer = view.layer, window = window_, dim = ws.dim;
  const int D = static_cast<int>(view.head_dim);
  const bool at_max = L == r.max_len;
  const int stride = sample_stride(L);
  // x [L, dim]: this head's values (head-major [H, 1, T, D]) or the attention input rows [T, C].
  const float* source = settings_.vectors == VectorKind::value ? view.values + static_cast<int64_t>(head) * L * D : view.inputs;
  for (int k = 0; k < L; ++k) {
    for (int i = 0; i < dim; ++i) ws.x[static_cast<std::size_t>(k) * dim + i] = source[static_cast<int64_t>(k) * dim + i];
    ws.x_norm[static_cast<std::size_t>(k)] = norm(&ws.x[static_cast<std::size_t>(k) * dim], dim);
  }
  int track_up_to = 0;  // d_max is needed for the distance files' N
  for (const NEntry& e : plan.entries)
    if (e.distance_file) track_up_to = std::max(track_up_to, e.N);
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
  const float* weights = view.weights_block(0, head);
  const float* queries = view.queries + static_cast<int64_t>(head) * L * D;
  const float* keys = view.keys + static_cast<int64_t>(head) * L * D;
  const double t_model = rows_.temperature / view.logit_scale;
  const double* params = nullptr;  // the head's learned normalizer parameters, for P5's row map
  if (const int P = sensitivity_.params_per_head(); P > 0) {
    if (!view.head_params)
      throw std::logic_error("probe P5: the attention gave no parameters for the " + sensitivity_.name() + " rows");
    for (int p = 0; p < P; ++p) ws.head_params[static_cast<std::size_t>(p)] = view.head_params[head * P + p];
    params = ws.head_params.data();
  }
  double max_key_norm = 0.0;
  int64_t vanish_lower_unchecked = 0;
  int64_t d_max_checks = 0, d_max_bad = 0, vanish_checks = 0, vanish_bad = 0, sep_checks = 0, sep_bad = 0, grad_checks = 0,
          grad_bad = 0;
  const int max_n_entry = plan.entries.empty() ? 0 : plan.entries.back().N;
  for (int t = 0; t < L; ++t) {
    const int n = t + 1;
    const float* row = weights + static_cast<int64_t>(t) * L;
    double q_norm = 0.0, key_norm = 0.0;
    for (int i = 0; i < D; ++i) {
      ws.q[static_cast<std::size_t>(i)] = queries[static_cast<int64_t>(t) * D + i];
      q_norm += ws.q[static_cast<std::size_t>(i)] * ws.q[static_cast<std::size_t>(i)];
      key_norm += static_cast<double>(keys[static_cast<int64_t>(t) * D + i]) * keys[static_cast<int64_t>(t) * D + i];
    }
    q_norm = std::sqrt(q_norm);
    max_key_norm = std::max(max_key_norm, std::sqrt(key_norm));  // over the visible keys 0 .. t
    double row_sum = 0.0;
    for (int k = 0; k < n; ++k) {
      ws.a[static_cast<std::size_t>(k)] = row[k];
      row_sum += row[k];
    }
    const bool sums_to_one = std::fabs(row_sum - 1.0) <= 1e-4;
    const std::size_t ri = r.row_index(layer, head, window, t);

    // P1: vanishing-attention bounds (softmax rows).
    if (at_max) {
      const VanishingRow v = vanishing_row(row, n, q_norm, max_key_norm, t_model);
      r.n_max_weight[ri] = static_cast<float>(v.n_max_weight);
      r.n_min_weight[ri] = static_cast<float>(v.n_min_weight);
      r.lower[ri] = static_cast<float>(v.lower);
      r.upper[ri] = static_cast<float>(v.upper);
      if (rows_.softmax) {
        ++vanish_checks;
        if (!v.lower_checked) ++vanish_lower_unchecked;
        if (v.violated) {
          ++vanish_bad;
          r.vanishing_violated[ri] = 1;
          if (v.upper_violated)
            record({"P1 upper bound (n max a <= e^{2 Delta/T})", layer, head, window, t, L, 0, v.n_max_weight, v.upper});
          else
            record({"P1 lower bound (n min a >= e^{-2 Delta/T})", layer, head, window, t, L, 0, v.n_min_weight, v.lower});
        }
      }
    }

    // P2-P4 over the N entries below n.
    if (!plan.entries.empty() && n > plan.entries.front().N) {
      const int count = std::min(n, max_n_entry);
      top_order(ws.a.data(), n, count, ws.order.data());
      ws.scan.start(ws.a.data(), ws.x.data(), n, ws.order.data(), ws.pairwise.data(), L, track_up_to);
      bool unit_ready = false;
      const bool sampled = (t + 1) % stride == 0;
      for (std::size_t ei = 0; ei < plan.entries.size(); ++ei) {
        const NEntry& e = plan.entries[ei];
        if (e.N >= n) break;
        ws.scan.grow_to(e.N);
        const DistanceTerms d = ws.scan.terms(e.distance_file);
        const ExpectationBounds eb = expected_distance_bounds(ws.scan.c(), ws.scan.total(), n, dim, e.N);
        DistanceSums& acc = sums[r.sums_index(static_cast<int>(ei), layer, head, window)];
        acc.d_true += d.d_true;
        acc.d_r2 += d.d_r2;
        acc.e_main += eb.main;
        acc.e_up += eb.upper;
        ++acc.rows;
        if (e.distance_file) {
          acc.d_max += d.d_max;
          if (sums_to_one) {
            ++d_max_checks;
            if (d.d_true > d.d_max * (1.0 + 1e-6) + 1e-9) {
              ++d_max_bad;
              record({"d_true <= d_max", layer, head, window, t, L, e.N, d.d_true, d.d_max});
            }
          }
        }
        if (e.monte_carlo && sampled) {
          const uint64_t seed = mix(mix(mix(mix(mix(settings_.seed, 2), static_cast<uint64_t>(layer)), static_cast<uint64_t>(head)),
                                        static_cast<uint64_t>(window)),
                                    static_cast<uint64_t>(t) * 65536u + static_cast<uint64_t>(e.N));
          acc.e_mc += expected_distance_mc(ws.scan.c(), n, dim, e.N, settings_.mc_samples, seed, ws.mc);
          ++acc.mc_rows;
        }
        if (e.separability) {
          if (!unit_ready) {
            for (int k = 0; k < n; ++k) {
              const double scale = ws.x_norm[static_cast<std::size_t>(k)] > 0 ? ws.a[static_cast<std::size_t>(k)] / ws.x_norm[static_cast<std::size_t>(k)] : 0.0;
              for (int i = 0; i < dim; ++i)
                ws.unit_c[static_cast<std::size_t>(k) * dim + i] = scale * ws.x[static_cast<std::size_t>(k) * dim + i];
            }
            unit_ready = true;
          }
          const Separability sep = separability(ws.unit_c.data(), n, dim, ws.order.data(), e.N, ws.s.data());
          acc.separability += sep.ratio;
          ++acc.separability_rows;
          if (e.N == 1 && sep.radius > 0) {
            ++sep_checks;
            if (sep.ratio != 1.0) {
              ++sep_bad;
              record({"separability 1 at N = 1", layer, head, window, t, L, 1, sep.ratio, 1.0});
            }
          }
        }
      }
    }

    // P5: gradient sensitivity of the row map (softmax(l / T), or the model's own normalizer:
    // sensitivity_rows.h) on the sampled rows, raw logits l_k = q . k_k.
    if (at_max && n >= 2 && (t + 1) % stride == 0) {
      double mean = 0.0;
      for (int k = 0; k < n; ++k) {
        double l = 0.0;
        for (int i = 0; i < D; ++i) l += ws.q[static_cast<std::size_t>(i)] * keys[static_cast<int64_t>(k) * D + i];
        ws.logits[static_cast<std::size_t>(k)] = l;
        mean += l;
      }
      mean /= n;
      double var = 0.0;
      for (int k = 0; k < n; ++k) var += (ws.logits[static_cast<std::size_t>(k)] - mean) * (ws.logits[static_cast<std::size_t>(k)] - mean);
      r.logit_std[ri] = static_cast<float>(std::sqrt(var / n));
      Rng rng(mix(mix(mix(mix(mix(settings_.seed, 5), static_cast<uint64_t>(layer)), static_cast<uint64_t>(head)),
                      static_cast<uint64_t>(window)), static_cast<uint64_t>(t)));
      double v_norm = 0.0;
      for (int k = 0; k < n; ++k) {
        ws.direction[static_cast<std::size_t>(k)] = rng.normal();
        v_norm += ws.direction[static_cast<std::size_t>(k)] * ws.direction[static_cast<std::size_t>(k)];
      }
      v_norm = std::sqrt(v_norm);
      for (int k = 0; k < n; ++k) ws.direction[static_cast<std::size_t>(k)] /= v_norm;
      const std::size_t E = settings_.eps.size();
      for (std::size_t ti = 0; ti < settings_.temperatures.size(); ++ti) {
        const double T = settings_.temperatures[ti];
        sensitivity_.apply(ws.logits.data(), nullptr, 0.0, n, L, T, params, ws.p0.data(), ws.row_scratch.data());
        for (std::size_t ei = 0; ei < E; ++ei) {
          const double eps = settings_.eps[ei];
          const double g = row_sensitivity(sensitivity_, ws.logits.data(), ws.direction.data(), ws.p0.data(), n, L, T, eps,
                                           params, ws.p1.data(), ws.row_scratch.data());
          r.gradient_sums[(ti * E + ei) * r.gradient_rows.size() + (static_cast<std::size_t>(layer) * r.heads + head) * r.windows + window] += g;
          ++grad_checks;
          const double bound = sensitivity_.bound(n, T, eps, params);
          if (g > bound * (1.0 + 1e-9) + 1e-12 / eps) {
            ++grad_bad;
            record({sensitivity_.bound_text(), layer, head, window, t, L, 0, g, bound});
          }
        }
      }
      ++r.gradient_rows[(static_cast<std::size_t>(layer) * r.heads + head) * r.windows + window];
    }
  }
  const std::lock_guard<std::mutex> lock(record_mutex_);
  r.checks_d_max += d_max_checks;
  r.violations_d_max += d_max_bad;
  r.checks_vanishing += vanish_checks;
  r.violations_vanishing += vanish_bad;
  r.vanishing_lower_unchecked += vanish_lower_unchecked;
  r.checks_separability += sep_checks;
  r.violations_separability += sep_bad;
  r.checks_gradient += grad_checks;
  r.violations_gradient += grad_bad;
  r.rows_seen += L;
}

}  // namespace sinklab::normlimits
