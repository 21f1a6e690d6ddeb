#pragma once
// Calling a kernel compiled once per ISA level.
//
// A file named *.isa.cpp is compiled four times (CMakeLists.txt, sinklab_isa_kernels), each time with
// its level's -march and SINKLAB_ISA_NAMESPACE set to isa_sse42, isa_avx, isa_avx2 or isa_avx512; it
// defines its kernels inside that namespace. The plain .cpp beside it declares them for every level
// and defines the public function, which runs the chosen level's copy:
//
//   namespace sinklab::fused {
//   SINKLAB_DISPATCHED(void, causal_row_dots, (const float* a, ...), (a, ...))
//   }
//
// Everything a *.isa.cpp defines with external linkage must live in its ISA namespace: an inline
// function or template instantiation shared by name with another copy would be merged by the linker
// into one copy of unknown level (tests/core/isa_objects_test.cpp checks the objects for that).
#include "core/cpu/isa_level.h"

#define SINKLAB_DECLARE_PER_ISA(...)      \
  namespace isa_sse42 {                   \
  __VA_ARGS__;                            \
  }                                       \
  namespace isa_avx {                     \
  __VA_ARGS__;                            \
  }                                       \
  namespace isa_avx2 {                    \
  __VA_ARGS__;                            \
  }                                       \
  namespace isa_avx512 {                  \
  __VA_ARGS__;                            \
  }

// Declares `ret name params` in every level's namespace and defines the public function, which calls
// the chosen level's copy: SINKLAB_DISPATCHED(void, f, (const float* x, int n), (x, n))
#define SINKLAB_DISPATCHED(ret, name, params, args) \
  SINKLAB_DECLARE_PER_ISA(ret name params)          \
  ret name params { return SINKLAB_PER_ISA(name) args; }

// The chosen level's copy of `fn` (a function pointer; call it with the arguments).
#define SINKLAB_PER_ISA(fn) \
  ::sinklab::per_isa(::sinklab::kernel_isa_level(), &isa_sse42::fn, &isa_avx::fn, &isa_avx2::fn, &isa_avx512::fn)

namespace sinklab {

template <class Fn>
inline Fn per_isa(IsaLevel level, Fn sse42, Fn avx, Fn avx2, Fn avx512) {
  switch (level) {
    case IsaLevel::avx512: return avx512;
    case IsaLevel::avx2: return avx2;
    case IsaLevel::avx: return avx;
    case IsaLevel::sse42: break;
  }
  return sse42;
}

}  // namespace sinklab
