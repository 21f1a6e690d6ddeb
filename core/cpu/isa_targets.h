#pragma once
// The instruction-set extensions of each ISA level (core/cpu/isa_level.h), as GCC and clang's
// target("...") attribute takes them: cumulative, as the levels are.
#if defined(__x86_64__)
#define SINKLAB_ISA_TARGET_SSE42 "popcnt,sse4.2"
#define SINKLAB_ISA_TARGET_AVX SINKLAB_ISA_TARGET_SSE42 ",avx,fma"
#define SINKLAB_ISA_TARGET_AVX2 SINKLAB_ISA_TARGET_AVX ",avx2,bmi,bmi2,f16c,lzcnt,movbe"
#define SINKLAB_ISA_TARGET_AVX512 SINKLAB_ISA_TARGET_AVX2 ",avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
#elif defined(__aarch64__)
// NEON is the AArch64 baseline (no attribute needed); SVE adds the scalable vectors.
#define SINKLAB_ISA_TARGET_SVE "+sve"
#endif
