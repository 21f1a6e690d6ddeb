#pragma once
// Calling a kernel compiled once per ISA level.
//
// A file named *.isa.cpp is compiled once per level of the build's architecture (CMakeLists.txt,
// sinklab_isa_kernels), each time with its level's target and SINKLAB_ISA_NAMESPACE set to isa_<level>
// (isa_sse42, isa_avx, isa_avx2, isa_avx512 on x86-64; isa_neon, isa_sve on AArch64); it defines its
// kernels inside that namespace. The plain .cpp beside it declares them for every level and defines the
// public function, which runs the chosen level's copy:
//
//   namespace sinklab::fused {
//   SINKLAB_DISPATCHED(void, causal_row_dots, (const float* a, ...), (a, ...))
//   }
//
// Everything a *.isa.cpp defines with external linkage must live in its ISA namespace: an inline
// function or template instantiation shared by name with another copy would be merged by the linker
// into one copy of unknown level (tests/core/isa_objects_test.cpp checks the objects for that).
#include <iterator>

#include "core/cpu/isa_level.h"

#if defined(__x86_64__)
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

// The chosen level's copy of `fn` (a function pointer; call it with the arguments).
#define SINKLAB_PER_ISA(fn) \
  ::sinklab::per_isa(::sinklab::kernel_isa_level(), &isa_sse42::fn, &isa_avx::fn, &isa_avx2::fn, &isa_avx512::fn)
#else
#define SINKLAB_DECLARE_PER_ISA(...) \
  namespace isa_neon {               \
  __VA_ARGS__;                       \
  }                                  \
  namespace isa_sve {                \
  __VA_ARGS__;                       \
  }

#define SINKLAB_PER_ISA(fn) ::sinklab::per_isa(::sinklab::kernel_isa_level(), &isa_neon::fn, &isa_sve::fn)
#endif

// Declares `ret name params` in every level's namespace and defines the public function, which calls
// the chosen level's copy: SINKLAB_DISPATCHED(void, f, (const float* x, int n), (x, n))
#define SINKLAB_DISPATCHED(ret, name, params, args) \
  SINKLAB_DECLARE_PER_ISA(ret name params)          \
  ret name params { return SINKLAB_PER_ISA(name) args; }

namespace sinklab {

// One copy per level, in IsaLevel's order; the one of `level`.
template <class Fn, class... Fns>
inline Fn per_isa(IsaLevel level, Fn lowest, Fns... higher) {
  static_assert(sizeof...(Fns) + 1 == std::size(kIsaLevels), "one copy per ISA level");
  const Fn copies[] = {lowest, higher...};
  return copies[static_cast<int>(level)];
}

}  // namespace sinklab
