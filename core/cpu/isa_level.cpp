#include "core/cpu/isa_level.h"

#include <cstdlib>
#include <stdexcept>

#include "core/cpu/cpu_features.h"

namespace sinklab {
namespace {

IsaLevel choose_kernel_level() {
  const IsaLevel cpu = cpu_isa_level();
  const char* cap_text = std::getenv("SINKLAB_MAX_ISA");
  if (cap_text == nullptr || *cap_text == '\0') return cpu;
  const IsaLevel cap = parse_isa_level(cap_text, "environment variable SINKLAB_MAX_ISA");
  const IsaLevel chosen = cap < cpu ? cap : cpu;
  // oneDNN reads its own cap once, at its first ISA query: this runs before any matmul primitive.
  // It refuses (status invalid_arguments) only when its ISA was already queried; then its kernels
  // would not follow the cap, which must not pass silently. Where oneDNN has no cap at all (AArch64),
  // the kernel path names oneDNN's ISA beside ours.
  if (cpu_features::kOnednnCanBeCapped && !cpu_features::cap_onednn(chosen))
    throw std::runtime_error("SINKLAB_MAX_ISA=" + std::string(cap_text) +
                             ": oneDNN was already in use, so its kernels cannot be capped any more");
  return chosen;
}

}  // namespace

const char* isa_level_name(IsaLevel level) {
  switch (level) {
#if defined(__x86_64__)
    case IsaLevel::sse42: return "sse42";
    case IsaLevel::avx: return "avx";
    case IsaLevel::avx2: return "avx2";
    case IsaLevel::avx512: return "avx512";
#else
    case IsaLevel::neon: return "neon";
    case IsaLevel::sve: return "sve";
#endif
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

IsaLevel cpu_isa_level() { return cpu_features::detect_level(); }

IsaLevel kernel_isa_level() {
  static const IsaLevel level = choose_kernel_level();
  return level;
}

}  // namespace sinklab
