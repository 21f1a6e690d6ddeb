#pragma once
// Whether this test process is an AArch64 binary run by qemu-user on an x86-64 host (scripts/test-arm64.sh).
// qemu-user passes most of the host through: /proc/cpuinfo is the host's (an x86 "vendor_id" line in an
// AArch64 process gives it away), and memory advice such as MADV_HUGEPAGE is accepted and dropped. Tests of
// what only the host kernel can show skip there, saying so.
#include <fstream>
#include <string>

namespace sinklab::testing {

inline bool under_user_mode_emulation() {
#if defined(__aarch64__)
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("vendor_id", 0) == 0) return true;
#endif
  return false;
}

}  // namespace sinklab::testing
