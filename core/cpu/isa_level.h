#pragma once
// The instruction-set levels sinklab's hand-written kernels are compiled for, and the one this process
// runs. One build runs on any CPU of its architecture (x86-64-v2 and up; any AArch64): kernel sources
// named *.isa.cpp are compiled once per level (CMakeLists.txt, sinklab_isa_kernels) and the level is
// chosen once, at the first kernel call, from the CPU's features, capped by the environment variable
// SINKLAB_MAX_ISA (which caps oneDNN's JIT as well where oneDNN can be capped: on x86-64).
#include <string>
#include <string_view>

namespace sinklab {

// Ordered: each level includes every feature of the ones below it. The levels are the build's
// architecture's (core/cpu/isa_targets.h holds their compiler flags).
#if defined(__x86_64__)
enum class IsaLevel {
  sse42 = 0,   // x86-64-v2: SSE4.2, POPCNT; 16-byte vectors
  avx = 1,     // sse42 + AVX + FMA; 32-byte float vectors (CPUs with AVX and FMA but no AVX2)
  avx2 = 2,    // x86-64-v3: AVX2, FMA, BMI1/2, F16C; 32-byte vectors
  avx512 = 3,  // x86-64-v4: AVX-512 F, BW, CD, DQ, VL; 64-byte vectors
};
inline constexpr IsaLevel kIsaLevels[] = {IsaLevel::sse42, IsaLevel::avx, IsaLevel::avx2, IsaLevel::avx512};
#elif defined(__aarch64__)
enum class IsaLevel {
  neon = 0,  // Armv8-A Advanced SIMD, on every AArch64 CPU; 16-byte vectors
  sve = 1,   // the Scalable Vector Extension: vector-length-agnostic loops, the length read at run time
};
inline constexpr IsaLevel kIsaLevels[] = {IsaLevel::neon, IsaLevel::sve};
#else
#error "sinklab builds for x86-64 and AArch64"
#endif

const char* isa_level_name(IsaLevel level);
// "sse42, avx, avx2, avx512" (x86-64), "neon, sve" (AArch64)
std::string isa_level_names();
// The level named `name` (as isa_level_name writes it); throws std::invalid_argument naming `what`,
// the value and the valid names.
IsaLevel parse_isa_level(std::string_view name, std::string_view what);

// The best level this CPU and its OS support (AVX or SVE state enabled by the OS). Throws
// std::runtime_error on an x86-64 CPU below x86-64-v2, which this build cannot run on.
IsaLevel cpu_isa_level();

// The level every dispatched kernel runs at in this process: min(cpu_isa_level(), SINKLAB_MAX_ISA).
// Decided at the first call and fixed for the process; when SINKLAB_MAX_ISA is set on x86-64, oneDNN is
// capped at the same level then (before its first primitive). oneDNN 2.6 has no cap on AArch64
// (core/cpu/cpu_features.h). Throws std::runtime_error naming the variable when SINKLAB_MAX_ISA holds
// no level name.
IsaLevel kernel_isa_level();

}  // namespace sinklab
