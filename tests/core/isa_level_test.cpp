// The ISA level a process runs its kernels at (core/cpu/isa_level.h) and the dispatch between the
// copies of a *.isa.cpp (core/cpu/isa_dispatch.h).
#include "core/cpu/isa_level.h"

#include <gtest/gtest.h>

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
    EXPECT_EQ(std::string(e.what()),
              "environment variable SINKLAB_MAX_ISA: 'avx-512' is not an ISA level; one of sse42, avx, avx2, avx512");
  }
  EXPECT_THROW(parse_isa_level("", "x"), std::invalid_argument);
  EXPECT_THROW(parse_isa_level("AVX2", "x"), std::invalid_argument);
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
  EXPECT_EQ(d.kernel_path, d.kernel_level + "+onednn:" + d.onednn_isa);
  EXPECT_FALSE(d.model.empty());
  ASSERT_FALSE(d.features.empty()) << "an x86-64-v2 CPU has at least sse4.2 and popcnt";
  EXPECT_EQ(d.features.front(), "sse4.2");
  // oneDNN follows the cap: below AVX-512 its effective ISA is no AVX-512 one.
  if (kernel_isa_level() < IsaLevel::avx512) {
    EXPECT_EQ(d.onednn_isa.find("avx512"), std::string::npos) << d.onednn_isa;
  }
  if (kernel_isa_level() < IsaLevel::avx2) {
    EXPECT_EQ(d.onednn_isa.find("avx2"), std::string::npos) << d.onednn_isa;
  }
}

int level_sse42() { return 0; }
int level_avx() { return 1; }
int level_avx2() { return 2; }
int level_avx512() { return 3; }

TEST(IsaDispatch, PicksTheCopyOfTheGivenLevel) {
  for (IsaLevel level : kIsaLevels)
    EXPECT_EQ(per_isa(level, &level_sse42, &level_avx, &level_avx2, &level_avx512)(), static_cast<int>(level));
}

}  // namespace
}  // namespace sinklab
