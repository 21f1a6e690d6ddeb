// The per-level copies of *.isa.cpp (core/cpu/isa_dispatch.h) keep everything outside their ISA
// namespace at the baseline: the inline functions and template instantiations of headers (std's among
// them) that such an object defines are merged by the linker with every other object's copy, so one
// compiled for AVX-512 would run on every caller, also on a CPU without it. Disassembles the objects
// of this build and looks for vector instructions above the baseline (SSE4.2 on x86-64, NEON on AArch64)
// outside the ISA namespaces.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

namespace {

std::vector<std::filesystem::path> isa_objects() {
  std::vector<std::filesystem::path> objects;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(std::filesystem::path(SINKLAB_BINARY_DIR) / "CMakeFiles"))
    if (e.is_regular_file() && e.path().extension() == ".o" && e.path().string().find("/isa/") != std::string::npos)
      objects.push_back(e.path());
  return objects;
}

// The build's objdump (CMake's, for the target: aarch64-linux-gnu-objdump when cross-compiling).
std::string objdump() { return SINKLAB_OBJDUMP; }

#if defined(__x86_64__)
// VEX/EVEX instructions or ymm/zmm/mask registers.
const std::regex kAboveBaseline(R"(^\s+[0-9a-f]+:\s+v[a-z0-9]+\s|%[yz]mm|%k[0-7])");
const char* const kTopLevelObjects = "/isa/avx512/";
#else
// SVE's scalable (z) registers, its predicates, or its loop instructions.
const std::regex kAboveBaseline(R"(\bz[0-9]+\.[bhsdq]\b|\bp[0-9]+/[zm]\b|\bptrue\b|\bwhilelo\b)");
const char* const kTopLevelObjects = "/isa/sve/";
#endif

// Functions of `object` outside the isa_* namespaces that use instructions above the baseline.
std::vector<std::string> functions_above_baseline(const std::filesystem::path& object) {
  const std::string command = objdump() + " -d --no-show-raw-insn -C '" + object.string() + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {"cannot run objdump"};
  static const std::regex header(R"(^[0-9a-f]+ <(.*)>:$)");
  const std::regex& above = kAboveBaseline;
  std::vector<std::string> found;
  std::string function, line;
  bool flagged = false;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) {
    line = buffer;
    if (!line.empty() && line.back() == '\n') line.pop_back();
    std::smatch m;
    if (std::regex_match(line, m, header)) {
      function = m[1];
      flagged = false;
      continue;
    }
    if (flagged || function.empty() || function.find("::isa_") != std::string::npos) continue;
    if (std::regex_search(line, above)) {
      found.push_back(function + ": " + line);
      flagged = true;
    }
  }
  const int status = pclose(pipe);
  if (status != 0) found.push_back("objdump exited with " + std::to_string(status));
  return found;
}

TEST(IsaObjects, CodeOutsideTheIsaNamespacesStaysAtTheBaseline) {
  const std::vector<std::filesystem::path> objects = isa_objects();
  ASSERT_GE(objects.size(), 8u) << "the per-level objects of layers/*.isa.cpp under " << SINKLAB_BINARY_DIR;
  int checked_above_baseline = 0;
  for (const auto& object : objects) {
    SCOPED_TRACE(object.string());
    for (const std::string& f : functions_above_baseline(object)) ADD_FAILURE() << f;
    if (object.string().find(kTopLevelObjects) != std::string::npos) ++checked_above_baseline;
  }
  EXPECT_GT(checked_above_baseline, 0);
}

// How many lines of `object`'s disassembly match the grep pattern; -1 if objdump cannot be run.
int disassembly_lines_matching(const std::filesystem::path& object, const std::string& pattern) {
  const std::string command =
      objdump() + " -d --no-show-raw-insn '" + object.string() + "' | grep -c '" + pattern + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  int count = -1;
  if (std::fscanf(pipe, "%d", &count) != 1) count = -1;
  pclose(pipe);
  return count;
}

#if defined(__x86_64__)
// The check itself: the AVX-512 copies of the attention kernels (explicit 16-float vectors, so also
// in unoptimized builds) do use AVX-512 registers, so the pattern can match. Auto-vectorized loops
// elsewhere may keep to 256 bits, and stay scalar at -O0.
TEST(IsaObjects, TheAvx512AttentionKernelsUseAvx512Registers) {
  int checked = 0;
  for (const auto& object : isa_objects()) {
    const std::string name = object.string();
    if (name.find("/isa/avx512/layers/") == std::string::npos || name.find("attention_kernels") == std::string::npos)
      continue;
    ++checked;
    EXPECT_GT(disassembly_lines_matching(object, "%zmm"), 0) << object;
  }
  EXPECT_EQ(checked, 2) << "the fused and tiled attention kernels' avx512 objects";
}
#else
// The check itself, and what the SVE level is for: its copies of the element-wise, normalization, loss and
// optimizer kernels run length-agnostic SVE loops (z registers), so the pattern can match. Loops stay
// scalar in unoptimized builds.
TEST(IsaObjects, TheSveKernelCopiesUseScalableVectors) {
#ifndef NDEBUG
  GTEST_SKIP() << "an unoptimized build vectorizes nothing";
#endif
  int checked = 0;
  for (const auto& object : isa_objects()) {
    const std::string name = object.string();
    if (name.find("/isa/sve/core/kernels/") == std::string::npos) continue;
    if (name.find("elementwise") == std::string::npos && name.find("normalization") == std::string::npos &&
        name.find("losses") == std::string::npos && name.find("optimizer_updates") == std::string::npos)
      continue;
    ++checked;
    EXPECT_GT(disassembly_lines_matching(object, "z[0-9]*\\.s"), 0) << object;
  }
  EXPECT_EQ(checked, 4) << "the sve objects of four kernel files";
}
#endif

}  // namespace
