#include "layers/tiled_attention.h"

#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/kernels/elementwise_layout.h"
#include "layers/tiled_attention_kernels.h"

namespace sinklab {
namespace {

using tiled::BlockShape;
using tiled::RowMath;

// What backward needs (fits Node::kPayloadBytes): the row form and logit scale (a head's parameter
// is read again from the node's input), the tiles, how many threads the scratch was carved for, and
// one arena block: [H, B, T] log-sum-exp | [H, B] head-parameter gradient
// per block (summed per head in a fixed order after the parallel loop) | [threads, scratch].
struct TiledAttentionSaved {
  TiledForm form;
  float logit_scale;
  int16_t tile_rows, tile_cols, threads;
  float* kept;
};

// The row math of head h: a head-slot softmax reads its slot logit, a log-keys softmax its scale
// from head_params [H, 1].
RowMath math_of_head(const RowMath& math, const float* head_params, int64_t h) {
  RowMath m = math;
  if (math.form.rows == TiledForm::Rows::softmax_head_slot) m.form.slot_logit = head_params[h];
  if (math.form.rows == TiledForm::Rows::softmax_log_keys) m.head_scale = head_params[h];
  return m;
}

BlockShape block_shape(const Tensor& q, AttentionTiles tiles) {
  return {static_cast<int>(q.dim(2)), static_cast<int>(q.dim(3)), tiles.query_rows, tiles.key_cols};
}

bool worth_threads(const Tensor& q) {
  return q.dim(0) * q.dim(1) * q.dim(2) * q.dim(2) >= kernels::kParallelMinElements;
}

// q, k, v, o: [H, B, T, D]; lse: [H, B, T]
void tiled_attention_backward(const Node& n) {
  const Tensor &q = n.inputs[0], &k = n.inputs[1], &v = n.inputs[2], &params = n.inputs[3], &o = n.output;
  const auto& saved = n.payload<TiledAttentionSaved>();
  const BlockShape shape = block_shape(q, {saved.tile_rows, saved.tile_cols});
  const int64_t B = q.dim(1), blocks = q.dim(0) * q.dim(1), TD = q.dim(2) * q.dim(3), T = q.dim(2);
  const float* lse = saved.kept;
  float* dhead = saved.kept + blocks * T;  // [H, B]
  float* scratch = dhead + blocks;
  const bool want_head = params.defined() && params.requires_grad();
  if (want_head) std::fill_n(dhead, blocks, 0.0f);
  const int64_t per_thread = tiled::scratch_floats(shape);
  float* dq = q.requires_grad() ? q.grad() : nullptr;
  float* dk = k.requires_grad() ? k.grad() : nullptr;
  float* dv = v.requires_grad() ? v.grad() : nullptr;
  // One thread per (head, sample) block: its key tiles accumulate dK and dV, its query tiles dQ.
#pragma omp parallel for schedule(dynamic, 1) num_threads(saved.threads) if (saved.threads > 1)
  for (int64_t hb = 0; hb < blocks; ++hb) {
    const int64_t at = hb * TD;
    tiled::backward_block(
        q.data() + at, k.data() + at, v.data() + at, o.data() + at, o.grad() + at, lse + hb * T, dq ? dq + at : nullptr,
        dk ? dk + at : nullptr, dv ? dv + at : nullptr, want_head ? dhead + hb : nullptr, shape,
        math_of_head(RowMath{saved.form, saved.logit_scale}, params.defined() ? params.data() : nullptr, hb / B),
        scratch + omp_get_thread_num() * per_thread);
  }
  if (want_head)
    for (int64_t hb = 0; hb < blocks; ++hb) params.grad()[hb / B] += dhead[hb];
}

void check_inputs(const Tensor& q, const Tensor& k, const Tensor& v, const TiledForm& form, const Tensor& head_params,
                  AttentionTiles tiles) {
  if (q.rank() != 4 || !q.is_contiguous() || !k.is_contiguous() || !v.is_contiguous() || !(k.shape() == q.shape()) ||
      !(v.shape() == q.shape()))
    throw std::invalid_argument("tiled_attention: q, k, v must be contiguous [H, B, T, D] of one shape, got " +
                                q.shape().str() + ", " + k.shape().str() + ", " + v.shape().str());
  if (tiles.query_rows < 1 || tiles.query_rows > 1024 || tiles.key_cols < 1 || tiles.key_cols > tiled::kTileCols)
    throw std::invalid_argument("tiled_attention: tiles must be 1..1024 query rows x 1.." +
                                std::to_string(tiled::kTileCols) + " keys");
  const bool wants_params = form.learns_head_param();
  if (wants_params != head_params.defined() ||
      (wants_params && (head_params.numel() != q.dim(0) || !head_params.is_contiguous())))
    throw std::invalid_argument("tiled_attention: a head-slot or log-keys softmax needs contiguous [" +
                                std::to_string(q.dim(0)) + ", 1] head parameters, other rows none");
}

}  // namespace

Tensor tiled_attention(Graph& g, const Tensor& q, const Tensor& k, const Tensor& v, float logit_scale,
                       const TiledForm& form, const Tensor& head_params, AttentionTiles tiles) {
  check_inputs(q, k, v, form, head_params, tiles);
  const int64_t B = q.dim(1), blocks = q.dim(0) * q.dim(1), T = q.dim(2), TD = q.dim(2) * q.dim(3);
  const bool track = g.needs_grad({q, k, v, head_params});
  Tensor o = g.new_tensor(q.shape(), track);
  const BlockShape shape = block_shape(q, tiles);
  const RowMath math{form, logit_scale};
  const int threads = worth_threads(q) ? std::min(omp_get_max_threads(), 256) : 1;
  const int64_t per_thread = tiled::scratch_floats(shape);
  float* kept = g.scratch(static_cast<size_t>(blocks * T + blocks + threads * per_thread));
  float* lse = kept;
  float* scratch = kept + blocks * T + blocks;

  // (block, query tile) pairs, the longest (last) tiles of each block first: causal tiles are triangular.
  const int64_t query_tiles = (T + tiles.query_rows - 1) / tiles.query_rows;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
  for (int64_t task = 0; task < blocks * query_tiles; ++task) {
    const int64_t hb = task % blocks, tile = query_tiles - 1 - task / blocks;
    const int64_t at = hb * TD;
    tiled::forward_query_tile(q.data() + at, k.data() + at, v.data() + at, o.data() + at, lse + hb * T,
                              static_cast<int>(tile * tiles.query_rows), shape,
                              math_of_head(math, head_params.defined() ? head_params.data() : nullptr, hb / B),
                              scratch + omp_get_thread_num() * per_thread);
  }

  if (track) {
    Node n;
    n.backward = tiled_attention_backward;
    n.op = "tiled_attention";
    n.inputs = {q, k, v, head_params};
    n.output = o;
    n.set_payload(TiledAttentionSaved{form, logit_scale, static_cast<int16_t>(tiles.query_rows),
                                      static_cast<int16_t>(tiles.key_cols), static_cast<int16_t>(threads), kept});
    g.record(n);
  }
  return o;
}

}  // namespace sinklab
