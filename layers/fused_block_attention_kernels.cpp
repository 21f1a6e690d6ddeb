// The public kernels of layers/fused_block_attention_kernels.h: each runs the copy of
// layers/fused_block_attention_kernels.isa.cpp compiled for the chosen ISA level.
#include "layers/fused_block_attention_kernels.h"

#include "core/cpu/isa_dispatch.h"

namespace sinklab::fused {

SINKLAB_DISPATCHED(void, causal_row_dots,
                   (const float* a, const float* b, int T, int D, float mult, float* out, float* bt_scratch),
                   (a, b, T, D, mult, out, bt_scratch))
SINKLAB_DISPATCHED(void, accumulate_weights_times_rows,
                   (const float* w, const float* x, int T, int D, float mult, float* out, bool overwrite),
                   (w, x, T, D, mult, out, overwrite))
SINKLAB_DISPATCHED(void, accumulate_weights_transposed_times_rows,
                   (const float* w, const float* x, int T, int D, float mult, float* out, bool overwrite),
                   (w, x, T, D, mult, out, overwrite))

}  // namespace sinklab::fused
