// softmax_short_row (layers/normalizers/softmax_short_row.h): runs the copy of
// layers/normalizers/softmax_short_row.isa.cpp compiled for the chosen ISA level.
#include "layers/normalizers/softmax_short_row.h"

#include "core/cpu/isa_dispatch.h"

namespace sinklab {

SINKLAB_DISPATCHED(void, softmax_short_row, (const float* scores, float* probs, int n, float inv_t),
                   (scores, probs, n, inv_t))

}  // namespace sinklab
