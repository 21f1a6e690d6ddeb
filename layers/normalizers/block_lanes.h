#pragma once
// Shared by the normalizers' whole-block kernels for T <= 16 keys: one causal row per AVX-512
// register (lane k = key k). Only included where __AVX512F__ is defined.
#include <immintrin.h>

// GCC 12's <avx512fintrin.h> passes _mm512_undefined_ps() / _mm256_undefined_pd() to masked builtins
// (in _mm512_max_ps, _mm512_reduce_add_ps, ...) and then reports them as maybe-uninitialized: a false
// positive in the header, not in our code. Ignored in the translation units that include this.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace sinklab::block_lanes {

constexpr int kLanes = 16;

// Lanes 0..n-1 (n <= 16): the visible keys of row n-1, or the T columns of a row.
inline __mmask16 first_lanes(int n) { return static_cast<__mmask16>((1u << n) - 1u); }

}  // namespace sinklab::block_lanes
