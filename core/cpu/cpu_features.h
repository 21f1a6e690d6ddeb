#pragma once
// What sinklab asks of the CPU, answered once per architecture: core/cpu/cpu_features_x86.cpp (cpuid)
// and core/cpu/cpu_features_aarch64.cpp (the kernel's hwcaps). Only core/cpu uses these.
#include <string>
#include <vector>

#include "core/cpu/isa_level.h"

namespace sinklab::cpu_features {

// The best IsaLevel of this CPU and OS; throws std::runtime_error when below the build's least level.
IsaLevel detect_level();

// Caps oneDNN's JIT at `level` before its first primitive. False when oneDNN was already in use (x86-64),
// or has no such control: oneDNN 2.6 implements set_max_cpu_isa for x86-64 only, so on AArch64 its
// kernels follow the CPU whatever SINKLAB_MAX_ISA says (the kernel path names oneDNN's own ISA).
bool cap_onednn(IsaLevel level);
// Whether cap_onednn can work at all on this architecture.
constexpr bool kOnednnCanBeCapped =
#if defined(__x86_64__)
    true;
#else
    false;
#endif

// The CPU's name ("Intel(R) Xeon(R) ...", "Neoverse-V1" or the MIDR implementer/part), "unknown" if none.
std::string model();
// The instruction-set extensions that matter to the kernels, the present ones.
std::vector<std::string> present();
// The vector length in bits of `level` when it is length-agnostic (SVE), as text; "" for fixed-width levels.
std::string scalable_vector_bits(IsaLevel level);
// oneDNN's effective ISA, by oneDNN's own name for it ("avx512_core_bf16", "asimd", "sve_512").
std::string onednn_isa();
// Whether oneDNN runs bf16 x bf16 -> f32 matmuls with native instructions at `level`.
bool onednn_has_native_bf16(IsaLevel level);

}  // namespace sinklab::cpu_features
