// core/cpu/cpu_features.h on AArch64: the kernel's hardware capabilities (getauxval) and MIDR_EL1.
#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

#include <cstdint>
#include <cstdio>
#include <dnnl.hpp>

#include "core/cpu/cpu_features.h"

namespace sinklab::cpu_features {
namespace {

bool has_hwcap(unsigned long bit) { return (getauxval(AT_HWCAP) & bit) != 0; }
bool has_hwcap2(unsigned long bit) { return (getauxval(AT_HWCAP2) & bit) != 0; }

// The SVE vector length of this thread in bits, 0 without SVE.
int sve_vector_bits() {
#if defined(PR_SVE_GET_VL)
  if (!has_hwcap(HWCAP_SVE)) return 0;
  const int vl = prctl(PR_SVE_GET_VL);
  return vl < 0 ? 0 : 8 * (vl & PR_SVE_VL_LEN_MASK);
#else
  return 0;
#endif
}

// A few implementer / part numbers of the cores researchers rent or own (Arm's TRMs, MIDR_EL1).
const char* core_name(unsigned implementer, unsigned part) {
  constexpr unsigned kAnyPart = ~0u;  // Apple's parts differ by chip and core type
  struct Core {
    unsigned implementer, part;
    const char* name;
  };
  static constexpr Core kCores[] = {
      {0x41, 0xd03, "Arm Cortex-A53"},    {0x41, 0xd08, "Arm Cortex-A72"},    {0x41, 0xd0c, "Arm Neoverse-N1"},
      {0x41, 0xd40, "Arm Neoverse-V1"},   {0x41, 0xd49, "Arm Neoverse-N2"},   {0x41, 0xd4f, "Arm Neoverse-V2"},
      {0x41, 0xd84, "Arm Neoverse-V3"},   {0x41, 0xd8e, "Arm Neoverse-N3"},   {0x46, 0x001, "Fujitsu A64FX"},
      {0xc0, 0xac3, "Ampere AmpereOne"},  {0x61, kAnyPart, "Apple"},             {0x00, 0x051, "QEMU max"},
  };
  for (const Core& c : kCores)
    if (c.implementer == implementer && (c.part == part || c.part == kAnyPart)) return c.name;
  return nullptr;
}

}  // namespace

IsaLevel detect_level() { return has_hwcap(HWCAP_SVE) ? IsaLevel::sve : IsaLevel::neon; }

bool cap_onednn(IsaLevel) { return false; }

std::string model() {
  // MIDR_EL1 is readable from user space where the kernel traps and emulates it (HWCAP_CPUID).
  if (!has_hwcap(HWCAP_CPUID)) return "unknown";
  uint64_t midr = 0;
  asm volatile("mrs %0, MIDR_EL1" : "=r"(midr));
  const unsigned implementer = (midr >> 24) & 0xff, part = (midr >> 4) & 0xfff;
  char text[96];
  const char* name = core_name(implementer, part);
  std::snprintf(text, sizeof text, "%s%sMIDR implementer 0x%02x part 0x%03x", name ? name : "", name ? ", " : "",
                implementer, part);
  return text;
}

std::vector<std::string> present() {
  std::vector<std::string> found;
  if (has_hwcap(HWCAP_ASIMD)) found.push_back("asimd");
  if (has_hwcap(HWCAP_FPHP)) found.push_back("fphp");
  if (has_hwcap(HWCAP_ASIMDDP)) found.push_back("asimddp");
  if (const int bits = sve_vector_bits(); bits > 0) found.push_back("sve" + std::to_string(bits));
#if defined(HWCAP2_SVE2)
  if (has_hwcap2(HWCAP2_SVE2)) found.push_back("sve2");
#endif
#if defined(HWCAP2_BF16)
  if (has_hwcap2(HWCAP2_BF16)) found.push_back("bf16");
#endif
#if defined(HWCAP2_I8MM)
  if (has_hwcap2(HWCAP2_I8MM)) found.push_back("i8mm");
#endif
  return found;
}

std::string scalable_vector_bits(IsaLevel level) {
  return level == IsaLevel::sve ? std::to_string(sve_vector_bits()) : "";
}

std::string onednn_isa() {
  // oneDNN 2.6's AArch64 ISA bits (src/cpu/aarch64/cpu_isa_traits.hpp): each SVE width includes the ones
  // below it and Advanced SIMD; the public enum names only x86-64's.
  switch (static_cast<unsigned>(dnnl::get_effective_cpu_isa())) {
    case 0x0: return "any";
    case 0x1: return "asimd";
    case 0x3: return "sve_128";
    case 0x7: return "sve_256";
    case 0xf: return "sve_384";
    case 0x1f: return "sve_512";
  }
  char text[32];
  std::snprintf(text, sizeof text, "isa_bits_0x%x", static_cast<unsigned>(dnnl::get_effective_cpu_isa()));
  return text;
}

// oneDNN 2.6 has no AArch64 bf16 matmul (its primitive descriptor finds none, or only the reference one).
bool onednn_has_native_bf16(IsaLevel) { return false; }

}  // namespace sinklab::cpu_features
#endif
