// Arena: alignment, spill into extra blocks, consolidation on rewind so that repeating an identical
// allocation pattern needs no new heap block.
#include "core/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace sinklab {
namespace {

bool aligned64(const float* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

TEST(Arena, AllocationsAre64ByteAlignedAndDisjoint) {
  Arena arena(1024);
  std::vector<float*> ptrs;
  for (size_t n : {1, 3, 16, 17, 100, 5}) {
    float* p = arena.allocate(n);
    EXPECT_TRUE(aligned64(p)) << n << " floats";
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>(n);  // writable over its full size
    ptrs.push_back(p);
  }
  for (size_t i = 1; i < ptrs.size(); ++i) EXPECT_GT(ptrs[i], ptrs[i - 1]);
  EXPECT_EQ(ptrs[1] - ptrs[0], 16);  // one float rounds up to one 64-byte line
  EXPECT_GE(arena.used(), 1u + 3 + 16 + 17 + 100 + 5);
}

TEST(Arena, SpillThenConsolidate) {
  Arena arena(256);
  EXPECT_EQ(arena.heap_allocations(), 1u);
  auto step = [&arena] {
    for (int i = 0; i < 10; ++i) arena.allocate(100);  // 10 * 112 floats > 256: spills
  };
  step();
  EXPECT_GT(arena.heap_allocations(), 1u);
  const size_t high = arena.high_water();
  EXPECT_GE(high, 1000u);
  arena.rewind();
  EXPECT_EQ(arena.used(), 0u);
  EXPECT_GE(arena.capacity(), high);
  const size_t after_first_rewind = arena.heap_allocations();
  for (int s = 0; s < 5; ++s) {
    step();
    arena.rewind();
  }
  EXPECT_EQ(arena.heap_allocations(), after_first_rewind);
  EXPECT_EQ(arena.high_water(), high);
}

TEST(Arena, RewindWithoutSpillKeepsTheBlock) {
  Arena arena(4096);
  float* first = arena.allocate(10);
  arena.rewind();
  EXPECT_EQ(arena.allocate(10), first);  // the same memory is handed out again
  EXPECT_EQ(arena.heap_allocations(), 1u);
}

TEST(Arena, ZeroSizedAllocationIsValid) {
  Arena arena(64);
  float* a = arena.allocate(0);
  float* b = arena.allocate(0);
  EXPECT_NE(a, nullptr);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace sinklab
