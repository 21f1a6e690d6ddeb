// allocate_zeroed_floats: zeroed, aligned and writable at every size; a large block is advised to take
// huge pages.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "core/large_block.h"
#include "tests/support/emulation.h"

namespace sinklab {
namespace {

bool all_zero(const float* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != 0.0f) return false;
  return true;
}

TEST(LargeBlock, EverySizeIsZeroedAlignedAndWritable) {
  for (const size_t count : {size_t{0}, size_t{1}, size_t{17}, size_t{4096}, kLargeBlockMapBytes / 4 - 1,
                             kLargeBlockMapBytes / 4, size_t{3} << 20}) {
    const LargeBlock block = allocate_zeroed_floats(count);
    ASSERT_NE(block.get(), nullptr) << count;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block.get()) % 64, 0u) << count;
    const size_t n = count == 0 ? 1 : count;
    EXPECT_TRUE(all_zero(block.get(), n)) << count;
    block[0] = 1.0f;
    block[n - 1] = 2.0f;  // the last float is the block's: no fault, and ASan builds check the bound
    EXPECT_EQ(block[0] + block[n - 1], n == 1 ? 4.0f : 3.0f);
  }
}

// The VmFlags line of the mapping that holds `p`, from /proc/self/smaps; empty when not found.
std::string flags_of_mapping(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto address = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> from >> dash >> to && dash == '-') {
      inside = from <= address && address < to;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line.substr(8) + " ";
  }
  return {};
}

// The advice is what this code controls (whether the kernel has huge pages to give is the machine's
// business): "hg" in the mapping's flags is MADV_HUGEPAGE.
TEST(LargeBlock, ALargeBlockIsAdvisedToTakeHugePages) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer every block comes from the heap, which ASan checks";
#endif
  if (testing::under_user_mode_emulation())
    GTEST_SKIP() << "qemu-user accepts MADV_HUGEPAGE without passing it to the host's kernel";
  const size_t count = size_t{16} << 20;  // 64 MB
  const LargeBlock block = allocate_zeroed_floats(count);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block.get()) % (size_t{2} << 20), 0u);
  const std::string flags = flags_of_mapping(block.get());
  ASSERT_FALSE(flags.empty()) << "no mapping in /proc/self/smaps holds the block";
  EXPECT_NE(flags.find(" hg "), std::string::npos) << "VmFlags:" << flags;
  const LargeBlock small = allocate_zeroed_floats(1000);
  EXPECT_EQ(flags_of_mapping(small.get()).find(" hg "), std::string::npos);  // heap memory: not advised
}

}  // namespace
}  // namespace sinklab
