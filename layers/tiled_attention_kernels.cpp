// The public kernels of layers/tiled_attention_kernels.h: each runs the copy of
// layers/tiled_attention_kernels.isa.cpp compiled for the chosen ISA level.
#include "layers/tiled_attention_kernels.h"

#include "core/cpu/isa_dispatch.h"

namespace sinklab::tiled {

SINKLAB_DISPATCHED(void, forward_query_tile,
                   (const float* q, const float* k, const float* v, float* o, float* lse, int i0,
                    const BlockShape& shape, const RowMath& math, float* scratch),
                   (q, k, v, o, lse, i0, shape, math, scratch))
SINKLAB_DISPATCHED(void, backward_block,
                   (const float* q, const float* k, const float* v, const float* o, const float* dout,
                    const float* lse, float* dq, float* dk, float* dv, float* dhead, const BlockShape& shape,
                    const RowMath& math, float* scratch),
                   (q, k, v, o, dout, lse, dq, dk, dv, dhead, shape, math, scratch))

// The pieces carve() in the kernels lays out: kt, vt, dkt, dvt; s, dp; acc; m, l, m_new; delta.
int64_t scratch_floats(const BlockShape& shape) {
  return 4 * int64_t{shape.head_dim} * kTileCols + 2 * int64_t{shape.tile_rows} * kTileCols +
         int64_t{shape.tile_rows} * shape.head_dim + 3 * int64_t{shape.tile_rows} + shape.seq_len;
}

}  // namespace sinklab::tiled
