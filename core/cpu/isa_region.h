#pragma once
// For *.isa.cpp files only (core/cpu/isa_dispatch.h): the code between SINKLAB_ISA_BEGIN and
// SINKLAB_ISA_END is compiled for the level this copy is built at, everything before it (the headers)
// for the build's baseline. So the inline functions and templates of headers, std's among them, are
// baseline code wherever the linker keeps their one copy, and can still be inlined into the level's
// code; a whole-file -march would let the linker pick, say, the AVX-512 copy of std::fill_n for every
// caller. Include every header before SINKLAB_ISA_BEGIN.
//
// CMakeLists.txt (sinklab_isa_kernels) defines SINKLAB_ISA_LEVEL (as IsaLevel: 0 .. 3 on x86-64, 0 .. 1
// on AArch64) and SINKLAB_ISA_NAMESPACE (isa_sse42 .. isa_avx512, isa_neon or isa_sve) for each copy.
#if !defined(SINKLAB_ISA_LEVEL) || !defined(SINKLAB_ISA_NAMESPACE)
#error "core/cpu/isa_region.h is for *.isa.cpp files, compiled once per ISA level by CMakeLists.txt"
#endif

#include "core/cpu/isa_targets.h"

// This copy's instruction-set extensions and the float lanes of one of its vector registers. SVE's
// registers have no width at compile time: its copy keeps NEON's 4-float vector types for the kernels
// written with them, and its plain loops are vectorized length-agnostic (whilelo, incw), so they use
// the CPU's vector length, whatever it is, at run time.
#if defined(__x86_64__)
#if SINKLAB_ISA_LEVEL == 0
#define SINKLAB_ISA_TARGET SINKLAB_ISA_TARGET_SSE42
#define SINKLAB_VECTOR_FLOATS 4
#elif SINKLAB_ISA_LEVEL == 1
#define SINKLAB_ISA_TARGET SINKLAB_ISA_TARGET_AVX
#define SINKLAB_VECTOR_FLOATS 8
#elif SINKLAB_ISA_LEVEL == 2
#define SINKLAB_ISA_TARGET SINKLAB_ISA_TARGET_AVX2
#define SINKLAB_VECTOR_FLOATS 8
#elif SINKLAB_ISA_LEVEL == 3
#define SINKLAB_ISA_TARGET SINKLAB_ISA_TARGET_AVX512
#define SINKLAB_VECTOR_FLOATS 16
#else
#error "SINKLAB_ISA_LEVEL must be 0 .. 3"
#endif
#elif defined(__aarch64__)
#if SINKLAB_ISA_LEVEL == 0
#define SINKLAB_VECTOR_FLOATS 4  // NEON: the baseline, no target attribute
#elif SINKLAB_ISA_LEVEL == 1
#define SINKLAB_ISA_TARGET SINKLAB_ISA_TARGET_SVE
#define SINKLAB_VECTOR_FLOATS 4
#else
#error "SINKLAB_ISA_LEVEL must be 0 .. 1"
#endif
#endif

#define SINKLAB_ISA_PRAGMA_TEXT(...) _Pragma(#__VA_ARGS__)
#define SINKLAB_ISA_PRAGMA(...) SINKLAB_ISA_PRAGMA_TEXT(__VA_ARGS__)
#if !defined(SINKLAB_ISA_TARGET)
#define SINKLAB_ISA_BEGIN
#define SINKLAB_ISA_END
#elif defined(__clang__)
#define SINKLAB_ISA_BEGIN \
  SINKLAB_ISA_PRAGMA(clang attribute push(__attribute__((target(SINKLAB_ISA_TARGET))), apply_to = function))
#define SINKLAB_ISA_END _Pragma("clang attribute pop")
#else
#define SINKLAB_ISA_BEGIN _Pragma("GCC push_options") SINKLAB_ISA_PRAGMA(GCC target(SINKLAB_ISA_TARGET))
#define SINKLAB_ISA_END _Pragma("GCC pop_options")
#endif
