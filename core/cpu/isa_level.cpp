#include "core/cpu/isa_level.h"

#include <dnnl.hpp>

#include <cstdlib>
#include <stdexcept>

namespace sinklab {
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

IsaLevel choose_kernel_level() {
  const IsaLevel cpu = cpu_isa_level();
  const char* cap_text = std::getenv("SINKLAB_MAX_ISA");
  if (cap_text == nullptr || *cap_text == '\0') return cpu;
  const IsaLevel cap = parse_isa_level(cap_text, "environment variable SINKLAB_MAX_ISA");
  const IsaLevel chosen = cap < cpu ? cap : cpu;
  // oneDNN reads its own cap once, at its first ISA query: this runs before any matmul primitive.
  // It refuses (status invalid_arguments) only when its ISA was already queried; then its kernels
  // would not follow the cap, which must not pass silently.
  if (dnnl::set_max_cpu_isa(onednn_cap(chosen)) != dnnl::status::success)
    throw std::runtime_error("SINKLAB_MAX_ISA=" + std::string(cap_text) +
                             ": oneDNN was already in use, so its kernels cannot be capped any more");
  return chosen;
}

}  // namespace

const char* isa_level_name(IsaLevel level) {
  switch (level) {
    case IsaLevel::sse42: return "sse42";
    case IsaLevel::avx: return "avx";
    case IsaLevel::avx2: return "avx2";
    case IsaLevel::avx512: return "avx512";
  }
  return "?";
}

std::string isa_level_names() {
  std::string names;
  for (IsaLevel level : kIsaLevels) names += std::string(names.empty() ? "" : ", ") + isa_level_name(level);
  return names;
}

IsaLevel parse_isa_level(std::string_view name, std::string_view what) {
  for (IsaLevel level : kIsaLevels)
    if (name == isa_level_name(level)) return level;
  throw std::invalid_argument(std::string(what) + ": '" + std::string(name) + "' is not an ISA level; one of " +
                              isa_level_names());
}

IsaLevel cpu_isa_level() {
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

IsaLevel kernel_isa_level() {
  static const IsaLevel level = choose_kernel_level();
  return level;
}

}  // namespace sinklab
