#pragma once
// Shared by the normalizers' whole-block kernels for T <= 16 keys: one causal row per AVX-512
// register (lane k = key k). The kernels are functions or lambdas marked SINKLAB_BLOCK_LANES_TARGET,
// called only when available(): at lower ISA levels (core/cpu/isa_level.h) blocks take the row path.
// They exist in x86-64 builds only (SINKLAB_BLOCK_LANES is 1 there): other architectures' blocks always
// take the row path, whose kernels are compiled per level (core/cpu/isa_dispatch.h).
#if defined(__x86_64__)
#define SINKLAB_BLOCK_LANES 1
#else
#define SINKLAB_BLOCK_LANES 0
#endif

#if SINKLAB_BLOCK_LANES
#include <immintrin.h>

#include "core/cpu/isa_level.h"
#include "core/cpu/isa_targets.h"

// IsaLevel::avx512's extensions for one function or lambda; the rest of the file stays at the build's
// baseline.
#define SINKLAB_BLOCK_LANES_TARGET __attribute__((target(SINKLAB_ISA_TARGET_AVX512)))

// GCC 12's <avx512fintrin.h> passes _mm512_undefined_ps() / _mm256_undefined_pd() to masked builtins
// (in _mm512_max_ps, _mm512_reduce_add_ps, ...) and then reports them as maybe-uninitialized: a false
// positive in the header, not in our code. Ignored in the translation units that include this.
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace sinklab::block_lanes {

constexpr int kLanes = 16;

// Whether this process runs the block kernels (the kernel level is avx512).
inline bool available() { return kernel_isa_level() >= IsaLevel::avx512; }

// Lanes 0..n-1 (n <= 16): the visible keys of row n-1, or the T columns of a row.
inline __mmask16 first_lanes(int n) { return static_cast<__mmask16>((1u << n) - 1u); }

}  // namespace sinklab::block_lanes
#endif
