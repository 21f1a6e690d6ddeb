#include "core/arena.h"

#include <algorithm>
#include <cstdint>

namespace sinklab {
namespace {
constexpr size_t kAlignFloats = 16;  // 64 bytes
size_t round_up(size_t n) { return (n + kAlignFloats - 1) / kAlignFloats * kAlignFloats; }
}  // namespace

Arena::Arena(size_t initial_floats) {
  blocks_.reserve(16);
  add_block(std::max<size_t>(initial_floats, kAlignFloats));
}

void Arena::add_block(size_t floats) {
  Block b;
  b.size = round_up(floats);
  b.memory = allocate_zeroed_floats(b.size);
  b.base = b.memory.get();
  blocks_.push_back(std::move(b));
  ++heap_allocations_;
}

float* Arena::allocate(size_t floats) {
  const size_t n = round_up(std::max<size_t>(floats, 1));
  Block* b = &blocks_.back();
  if (b->used + n > b->size) {
    add_block(std::max(n, b->size));
    b = &blocks_.back();
  }
  float* p = b->base + b->used;
  b->used += n;
  used_total_ += n;
  high_water_ = std::max(high_water_, used_total_);
  return p;
}

void Arena::rewind() {
  if (blocks_.size() > 1) {
    // This step spilled: replace all blocks by one that holds the whole high-water mark.
    blocks_.clear();
    add_block(high_water_);
  }
  blocks_.back().used = 0;
  used_total_ = 0;
}

size_t Arena::capacity() const {
  size_t c = 0;
  for (const auto& b : blocks_) c += b.size;
  return c;
}

}  // namespace sinklab
