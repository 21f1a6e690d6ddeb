#pragma once
// Per-step activation arena: a bump allocator that is rewound after each training step.
// A step that does not fit spills into extra blocks; the next rewind() merges everything into one
// block of the high-water size, so from the second step on a steady-state loop allocates nothing.
#include <cstddef>
#include <memory>
#include <vector>

#include "core/large_block.h"

namespace sinklab {

class Arena {
 public:
  explicit Arena(size_t initial_floats = size_t{1} << 16);

  // 64-byte aligned, uninitialized.
  float* allocate(size_t floats);
  // Forget every allocation (pointers become invalid); consolidates spilled blocks.
  void rewind();

  size_t used() const { return used_total_; }            // floats handed out since the last rewind
  size_t capacity() const;                                // floats currently reserved
  size_t high_water() const { return high_water_; }       // largest used() ever seen
  size_t heap_allocations() const { return heap_allocations_; }  // blocks allocated so far

 private:
  struct Block {
    LargeBlock memory;  // core/large_block.h: 64-byte aligned
    float* base = nullptr;
    size_t size = 0;
    size_t used = 0;
  };
  void add_block(size_t floats);

  std::vector<Block> blocks_;
  size_t used_total_ = 0;
  size_t high_water_ = 0;
  size_t heap_allocations_ = 0;
};

}  // namespace sinklab
