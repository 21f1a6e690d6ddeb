// core/cpu/cpu_features.h on x86-64: cpuid and __builtin_cpu_supports.
#if defined(__x86_64__)
#include <cpuid.h>

#include <cstring>
#include <dnnl.hpp>
#include <stdexcept>

#include "core/cpu/cpu_features.h"

namespace sinklab::cpu_features {
namespace {

dnnl::cpu_isa onednn_cap(IsaLevel level) {
  switch (level) {
    case IsaLevel::sse42: return dnnl::cpu_isa::sse41;
    case IsaLevel::avx: return dnnl::cpu_isa::avx;
    case IsaLevel::avx2: return dnnl::cpu_isa::avx2;
    case IsaLevel::avx512: return dnnl::cpu_isa::avx512_core;
  }
  return dnnl::cpu_isa::sse41;
}

}  // namespace

IsaLevel detect_level() {
  // __builtin_cpu_supports checks the OS too: AVX and AVX-512 count only when XGETBV says their
  // register state is enabled. The levels' defining features (GCC's "x86-64-v3" names would do, but
  // clang 14 knows neither them nor f16c, lzcnt or movbe, which come with AVX2 on every such CPU).
  const bool v2 =
      __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("ssse3");
  const bool fma = __builtin_cpu_supports("avx") && __builtin_cpu_supports("fma");
  const bool v3 =
      fma && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
  const bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                  __builtin_cpu_supports("avx512vl");
  if (!v2)
    throw std::runtime_error("this CPU lacks x86-64-v2 (SSE4.2, POPCNT), the least this build of sinklab runs on");
  return v4 ? IsaLevel::avx512 : v3 ? IsaLevel::avx2 : fma ? IsaLevel::avx : IsaLevel::sse42;
}

bool cap_onednn(IsaLevel level) { return dnnl::set_max_cpu_isa(onednn_cap(level)) == dnnl::status::success; }

std::string model() {
  unsigned regs[12] = {};
  unsigned max_leaf = __get_cpuid_max(0x80000000u, nullptr);
  if (max_leaf < 0x80000004u) return "unknown";
  for (unsigned i = 0; i < 3; ++i)
    __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
  char text[sizeof regs + 1] = {};
  std::memcpy(text, regs, sizeof regs);
  std::string s(text);
  const size_t first = s.find_first_not_of(' '), last = s.find_last_not_of(' ');
  return first == std::string::npos ? "unknown" : s.substr(first, last - first + 1);
}

std::vector<std::string> present() {
  std::vector<std::string> found;
  // __builtin_cpu_supports takes string literals only (and clang 14 knows no f16c, lzcnt or movbe).
#define SINKLAB_FEATURE(name) \
  if (__builtin_cpu_supports(name)) found.push_back(name);
  SINKLAB_FEATURE("sse4.2")
  SINKLAB_FEATURE("popcnt")
  SINKLAB_FEATURE("avx")
  SINKLAB_FEATURE("fma")
  SINKLAB_FEATURE("avx2")
  SINKLAB_FEATURE("bmi2")
  SINKLAB_FEATURE("avx512f")
  SINKLAB_FEATURE("avx512bw")
  SINKLAB_FEATURE("avx512cd")
  SINKLAB_FEATURE("avx512dq")
  SINKLAB_FEATURE("avx512vl")
  SINKLAB_FEATURE("avx512vnni")
  SINKLAB_FEATURE("avx512bf16")
#undef SINKLAB_FEATURE
  return found;
}

std::string scalable_vector_bits(IsaLevel) { return ""; }

std::string onednn_isa() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::all: return "all";
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
  }
  return "unknown";
}

bool onednn_has_native_bf16(IsaLevel level) {
  if (level < IsaLevel::avx512) return false;
  const auto bf16 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_bf16);  // AMX levels include its bits
  return (static_cast<unsigned>(dnnl::get_effective_cpu_isa()) & bf16) == bf16;
}

}  // namespace sinklab::cpu_features
#endif
