#include "layers/fused_block_attention.h"

#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/kernels/elementwise_layout.h"
#include "layers/fused_block_attention_kernels.h"

namespace sinklab {
namespace {

// Where one step's arena block starts each piece (floats): [H, B, T, T] scores | [H, B, T, T] weights |
// [H*B, P] head-parameter gradients per block (summed per head in a fixed order after the parallel
// loop) | [threads, per_thread] scratch: b^T for the dot products, dP and dS [T, T], the normalizer's
// row scratch.
struct FusedLayout {
  int64_t block_floats, weights_offset, dparams_offset, scratch_offset, per_thread, total;
  int64_t dp_in_thread, ds_in_thread, rows_in_thread;  // offsets inside one thread's scratch
};

FusedLayout fused_layout(int64_t blocks, int64_t T, int64_t D, int64_t P, int normalizer_scratch, int threads) {
  FusedLayout l{};
  l.block_floats = T * T;
  l.weights_offset = blocks * T * T;
  l.dparams_offset = 2 * blocks * T * T;
  l.scratch_offset = l.dparams_offset + blocks * P;
  l.dp_in_thread = fused::dots_scratch_floats(static_cast<int>(D));
  l.ds_in_thread = l.dp_in_thread + T * T;
  l.rows_in_thread = l.ds_in_thread + T * T;
  l.per_thread = l.rows_in_thread + normalizer_scratch;
  l.total = l.scratch_offset + threads * l.per_thread;
  return l;
}

struct FusedSaved {
  const Normalizer* normalizer;  // the caller's; it outlives the step
  float* kept;                   // arena block laid out as FusedLayout says
  float logit_scale;
  int32_t threads;  // the scratch was carved for this many
};

int threads_for(int64_t blocks, int64_t T, int64_t D) {
  // Each block is ~T^2 D multiply-adds per product: below ~32k of them a parallel region costs more.
  return blocks > 1 && blocks * T * T * D >= kernels::kParallelMinElements ? std::min(omp_get_max_threads(), 256) : 1;
}

// q, k, v, o: [H, B, T, D]; scores, weights (kept): [H, B, T, T]; head params: [H, P]
void fused_block_attention_backward(const Node& n) {
  const Tensor &q = n.inputs[0], &k = n.inputs[1], &v = n.inputs[2], &params = n.inputs[3], &o = n.output;
  const auto& saved = n.payload<FusedSaved>();
  const Normalizer& norm = *saved.normalizer;
  const int64_t H = q.dim(0), B = q.dim(1), T = q.dim(2), D = q.dim(3), blocks = H * B, TD = T * D;
  const int P = norm.params_per_head();
  const FusedLayout l = fused_layout(blocks, T, D, P, norm.scratch_per_row(static_cast<int>(T)), saved.threads);
  const bool want_q = q.requires_grad(), want_k = k.requires_grad(), want_v = v.requires_grad();
  const bool want_params = P > 0 && params.defined() && params.requires_grad();
  const bool want_scores = want_q || want_k || want_params;
  // A gradient buffer this op alone writes is not zeroed by the graph (core/graph.h): each block's
  // product overwrites its own [T, D] slice instead of a memset of the whole [H, B, T, D] buffer out of
  // cache (10 % of a 4x4 paper step) or of each slice (3 %). A fresh buffer is a tracked input's, so
  // the product that overwrites it always runs.
  const bool fresh_q = n.fresh_grad[0], fresh_k = n.fresh_grad[1], fresh_v = n.fresh_grad[2];
  float* dparams = saved.kept + l.dparams_offset;
  if (want_params) std::fill_n(dparams, blocks * P, 0.0f);
  const float scale = saved.logit_scale;
  const int Ti = static_cast<int>(T), Di = static_cast<int>(D);

#pragma omp parallel for schedule(static) num_threads(saved.threads) if (saved.threads > 1)
  for (int64_t hb = 0; hb < blocks; ++hb) {
    const int h = static_cast<int>(hb / B);
    const int64_t at = hb * TD;
    const float* s = saved.kept + hb * l.block_floats;
    const float* p = saved.kept + l.weights_offset + hb * l.block_floats;
    const float* dout = o.grad() + at;
    float* thread = saved.kept + l.scratch_offset + omp_get_thread_num() * l.per_thread;
    if (want_v)
      fused::accumulate_weights_transposed_times_rows(p, dout, Ti, Di, 1.0f, v.grad() + at, fresh_v);  // dV = P^T dO
    if (!want_scores) continue;
    float* dp = thread + l.dp_in_thread;
    float* ds = thread + l.ds_in_thread;
    fused::causal_row_dots(dout, v.data() + at, Ti, Di, 1.0f, dp, thread);  // dP = dO V^T
    std::fill_n(ds, T * T, 0.0f);                                            // backward_block adds
    norm.backward_block(s, p, dp, ds, Ti, h, P > 0 ? params.data() + h * P : nullptr,
                        want_params ? dparams + hb * P : nullptr, thread + l.rows_in_thread);
    if (want_q)
      fused::accumulate_weights_times_rows(ds, k.data() + at, Ti, Di, scale, q.grad() + at, fresh_q);  // dQ = s dS K
    if (want_k)
      fused::accumulate_weights_transposed_times_rows(ds, q.data() + at, Ti, Di, scale, k.grad() + at,
                                                      fresh_k);  // dK = s dS^T Q
  }
  if (want_params)
    for (int64_t hb = 0; hb < blocks; ++hb)
      for (int j = 0; j < P; ++j) params.grad()[(hb / B) * P + j] += dparams[hb * P + j];
}

void check_inputs(const Tensor& q, const Tensor& k, const Tensor& v, const Normalizer& normalizer,
                  const Tensor& head_params) {
  if (q.rank() != 4 || !q.is_contiguous() || !k.is_contiguous() || !v.is_contiguous() || !(k.shape() == q.shape()) ||
      !(v.shape() == q.shape()))
    throw std::invalid_argument("fused_block_attention: q, k, v must be contiguous [H, B, T, D] of one shape, got " +
                                q.shape().str() + ", " + k.shape().str() + ", " + v.shape().str());
  if (q.dim(2) > fused::kMaxSeqLen)
    throw std::invalid_argument("fused_block_attention: rows of at most " + std::to_string(fused::kMaxSeqLen) +
                                " keys, got T = " + std::to_string(q.dim(2)));
  const int P = normalizer.params_per_head();
  if ((P > 0) != head_params.defined() ||
      (P > 0 && (head_params.numel() != q.dim(0) * P || !head_params.is_contiguous())))
    throw std::invalid_argument("fused_block_attention: normalizer '" + std::string(normalizer.name()) + "' needs " +
                                (P > 0 ? "contiguous [" + std::to_string(q.dim(0)) + ", " + std::to_string(P) + "]"
                                       : std::string("no")) +
                                " head parameters");
}

}  // namespace

Tensor fused_block_attention(Graph& g, const Tensor& q, const Tensor& k, const Tensor& v, float logit_scale,
                             const Normalizer& normalizer, const Tensor& head_params) {
  check_inputs(q, k, v, normalizer, head_params);
  const int64_t H = q.dim(0), B = q.dim(1), T = q.dim(2), D = q.dim(3), blocks = H * B, TD = T * D;
  const int P = normalizer.params_per_head();
  const bool track = g.needs_grad({q, k, v, head_params});
  Tensor o = g.new_tensor(q.shape(), track);
  const int threads = threads_for(blocks, T, D);
  const FusedLayout l = fused_layout(blocks, T, D, P, normalizer.scratch_per_row(static_cast<int>(T)), threads);
  float* kept = g.scratch(static_cast<size_t>(std::max<int64_t>(l.total, 1)));
  const int Ti = static_cast<int>(T), Di = static_cast<int>(D);

#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int64_t hb = 0; hb < blocks; ++hb) {
    const int h = static_cast<int>(hb / B);
    const int64_t at = hb * TD;
    float* s = kept + hb * l.block_floats;
    float* p = kept + l.weights_offset + hb * l.block_floats;
    float* thread = kept + l.scratch_offset + omp_get_thread_num() * l.per_thread;
    fused::causal_row_dots(q.data() + at, k.data() + at, Ti, Di, logit_scale, s, thread);  // S = s q k^T
    normalizer.forward_block(s, p, Ti, h, P > 0 ? head_params.data() + h * P : nullptr, thread + l.rows_in_thread);
    fused::accumulate_weights_times_rows(p, v.data() + at, Ti, Di, 1.0f, o.data() + at, /*overwrite=*/true);  // O = P V
  }

  if (track) {
    Node n;
    n.backward = fused_block_attention_backward;
    n.op = "fused_block_attention";
    n.overwrites_fresh_grads = true;  // q, k, v: every block's slice, see the backward
    n.inputs = {q, k, v, head_params};
    n.output = o;
    n.set_payload(FusedSaved{&normalizer, kept, logit_scale, threads});
    g.record(n);
  }
  return o;
}

}  // namespace sinklab
