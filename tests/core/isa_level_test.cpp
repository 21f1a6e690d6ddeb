// The ISA level a process runs its kernels at (core/cpu/isa_level.h) and the dispatch between the
// copies of a *.isa.cpp (core/cpu/isa_dispatch.h).
#include "core/cpu/isa_level.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "core/cpu/cpu_description.h"
#include "core/cpu/isa_dispatch.h"

namespace sinklab {
namespace {

TEST(IsaLevel, NamesRoundTripAndUnknownNamesAreRefusedWithTheValidOnes) {
  for (IsaLevel level : kIsaLevels) EXPECT_EQ(parse_isa_level(isa_level_name(level), "x"), level);
  try {
    parse_isa_level("avx-512", "environment variable SINKLAB_MAX_ISA");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
#if defined(__x86_64__)
    const std::string levels = "sse42, avx, avx2, avx512";
#else
    const std::string levels = "neon, sve";
#endif
    EXPECT_EQ(std::string(e.what()),
              "environment variable SINKLAB_MAX_ISA: 'avx-512' is not an ISA level; one of " + levels);
  }
  EXPECT_THROW(parse_isa_level("", "x"), std::invalid_argument);
  EXPECT_THROW(parse_isa_level("AVX2", "x"), std::invalid_argument);
  // Another architecture's levels are not this build's.
#if defined(__x86_64__)
  EXPECT_THROW(parse_isa_level("neon", "x"), std::invalid_argument);
#else
  EXPECT_THROW(parse_isa_level("avx2", "x"), std::invalid_argument);
#endif
}

TEST(IsaLevel, KernelLevelIsTheCpuLevelCappedBySinklabMaxIsa) {
  const IsaLevel cpu = cpu_isa_level(), kernel = kernel_isa_level();
  const char* cap = std::getenv("SINKLAB_MAX_ISA");
  if (cap == nullptr || *cap == '\0') {
    EXPECT_EQ(kernel, cpu);
  } else {
    const IsaLevel wanted = parse_isa_level(cap, "SINKLAB_MAX_ISA");
    EXPECT_EQ(kernel, wanted < cpu ? wanted : cpu);
  }
  EXPECT_EQ(kernel_isa_level(), kernel) << "chosen once for the process";
}

TEST(IsaLevel, CpuDescriptionNamesTheChosenPath) {
  const CpuDescription d = describe_cpu();
  EXPECT_EQ(d.kernel_level, isa_level_name(kernel_isa_level()));
  EXPECT_EQ(d.cpu_level, isa_level_name(cpu_isa_level()));
  EXPECT_EQ(d.kernel_path, d.kernel_level + d.kernel_vector_bits + "+onednn:" + d.onednn_isa);
  EXPECT_FALSE(d.model.empty());
#if defined(__x86_64__)
  ASSERT_FALSE(d.features.empty()) << "an x86-64-v2 CPU has at least sse4.2 and popcnt";
  EXPECT_EQ(d.features.front(), "sse4.2");
  // oneDNN follows the cap: below AVX-512 its effective ISA is no AVX-512 one.
  if (kernel_isa_level() < IsaLevel::avx512) {
    EXPECT_EQ(d.onednn_isa.find("avx512"), std::string::npos) << d.onednn_isa;
  }
  if (kernel_isa_level() < IsaLevel::avx2) {
    EXPECT_EQ(d.onednn_isa.find("avx2"), std::string::npos) << d.onednn_isa;
  }
  EXPECT_EQ(d.kernel_vector_bits, "") << "x86-64's levels fix their vector width";
#else
  // SVE's loops run at the CPU's vector length, which the path then names (sve512+onednn:sve_512).
  if (kernel_isa_level() == IsaLevel::sve) {
    const int bits = std::stoi(d.kernel_vector_bits);
    EXPECT_TRUE(bits >= 128 && bits <= 2048 && bits % 128 == 0) << bits;
  } else {
    EXPECT_EQ(d.kernel_vector_bits, "");
  }
  ASSERT_FALSE(d.features.empty()) << "every AArch64 CPU has Advanced SIMD";
  EXPECT_EQ(d.features.front(), "asimd");
  // The CPU's SVE, with its vector length, is a feature exactly when the CPU level is sve.
  const bool sve_feature = std::any_of(d.features.begin(), d.features.end(),
                                       [](const std::string& f) { return f.rfind("sve", 0) == 0 && f != "sve2"; });
  EXPECT_EQ(sve_feature, cpu_isa_level() == IsaLevel::sve);
  // oneDNN 2.6 cannot be capped here: its ISA is its own reading of the CPU (asimd, sve_128 .. sve_512).
  EXPECT_TRUE(d.onednn_isa == "asimd" || d.onednn_isa.rfind("sve_", 0) == 0) << d.onednn_isa;
  if (cpu_isa_level() == IsaLevel::neon) {
    EXPECT_EQ(d.onednn_isa, "asimd");
  }
#endif
}

int level_0() { return 0; }
int level_1() { return 1; }
int level_2() { return 2; }
int level_3() { return 3; }

TEST(IsaDispatch, PicksTheCopyOfTheGivenLevel) {
  for (IsaLevel level : kIsaLevels) {
#if defined(__x86_64__)
    EXPECT_EQ(per_isa(level, &level_0, &level_1, &level_2, &level_3)(), static_cast<int>(level));
#else
    EXPECT_EQ(per_isa(level, &level_0, &level_1)(), static_cast<int>(level));
    (void)&level_2, (void)&level_3;
#endif
  }
}

}  // namespace
}  // namespace sinklab
