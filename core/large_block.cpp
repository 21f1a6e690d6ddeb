#include "core/large_block.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace sinklab {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kMapLargeBlocks = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kMapLargeBlocks = false;
#else
constexpr bool kMapLargeBlocks = true;
#endif
#else
constexpr bool kMapLargeBlocks = true;
#endif

constexpr size_t kHugePage = size_t{2} << 20;

size_t round_up(size_t bytes, size_t to) { return (bytes + to - 1) / to * to; }

// A 2 MB aligned anonymous mapping of `bytes` (a multiple of 2 MB), or nullptr: a larger mapping is cut
// down to the aligned part so the kernel can back it with whole huge pages.
float* map_aligned(size_t bytes) {
  void* raw = ::mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = round_up(start, kHugePage);
  if (aligned > start) ::munmap(raw, aligned - start);
  const uintptr_t end = start + bytes + kHugePage;
  if (end > aligned + bytes) ::munmap(reinterpret_cast<void*>(aligned + bytes), end - (aligned + bytes));
  auto* block = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  ::madvise(block, bytes, MADV_HUGEPAGE);  // advice only: without huge pages the block is ordinary pages
#endif
  return static_cast<float*>(block);
}

}  // namespace

void LargeBlockFree::operator()(float* p) const {
  if (!p) return;
  if (mapped_bytes > 0) {
    ::munmap(p, mapped_bytes);
  } else {
    std::free(p);
  }
}

LargeBlock allocate_zeroed_floats(size_t count) {
  const size_t bytes = std::max<size_t>(count, 1) * sizeof(float);
  if (kMapLargeBlocks && bytes >= kLargeBlockMapBytes) {
    const size_t mapped = round_up(bytes, kHugePage);
    if (float* p = map_aligned(mapped)) return LargeBlock(p, LargeBlockFree{mapped});
    throw std::bad_alloc();
  }
  // calloc's blocks are 16-byte aligned; round the size up to whole cache lines and ask for 64 bytes.
  void* p = std::aligned_alloc(64, round_up(bytes, 64));
  if (!p) throw std::bad_alloc();
  std::fill_n(static_cast<float*>(p), round_up(bytes, 64) / sizeof(float), 0.0f);
  return LargeBlock(static_cast<float*>(p), LargeBlockFree{0});
}

}  // namespace sinklab
