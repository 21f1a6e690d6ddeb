#include "core/cpu/cpu_description.h"

#include <cpuid.h>

#include <cstring>
#include <dnnl.hpp>

#include "core/cpu/isa_level.h"

namespace sinklab {
namespace {

std::string brand_string() {
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

std::vector<std::string> present_features() {
  std::vector<std::string> present;
  // __builtin_cpu_supports takes string literals only (and clang 14 knows no f16c, lzcnt or movbe).
#define SINKLAB_FEATURE(name) \
  if (__builtin_cpu_supports(name)) present.push_back(name);
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
  return present;
}

std::string onednn_isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
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

}  // namespace

CpuDescription describe_cpu() {
  static const CpuDescription described = [] {
    CpuDescription d;
    d.model = brand_string();
    d.features = present_features();
    d.cpu_level = isa_level_name(cpu_isa_level());
    d.kernel_level = isa_level_name(kernel_isa_level());  // first: it may cap oneDNN
    d.onednn_isa = onednn_isa_name(dnnl::get_effective_cpu_isa());
    d.kernel_path = d.kernel_level + "+onednn:" + d.onednn_isa;
    return d;
  }();
  return described;
}

}  // namespace sinklab
