#pragma once
// Zeroed float blocks for the long-lived large arrays: parameters, gradients, optimizer moments and the
// activation arena. A block of 2 MB or more is mapped straight from the kernel, 2 MB aligned and marked
// for transparent huge pages (madvise): its zeros come from the kernel as it is first touched (no memset
// through a GPT-2-sized model's 1.5 GB at start-up) in 2 MB pieces, 512 times fewer page faults, which
// cost most inside a virtual machine; the training loop then walks it with fewer TLB misses. Smaller
// blocks, and every block under AddressSanitizer (which checks heap blocks only), come from the heap.
// Where the kernel gives no huge pages (transparent_hugepage "never"), the block is ordinary pages.
#include <cstddef>
#include <memory>

namespace sinklab {

struct LargeBlockFree {
  size_t mapped_bytes = 0;  // 0: from the heap
  void operator()(float* p) const;
};
using LargeBlock = std::unique_ptr<float[], LargeBlockFree>;

// Blocks from this many bytes on are mapped (and may get huge pages).
inline constexpr size_t kLargeBlockMapBytes = size_t{2} << 20;

// `count` zero floats (room for at least one), 64-byte aligned. Throws std::bad_alloc when the memory
// cannot be had.
LargeBlock allocate_zeroed_floats(size_t count);

}  // namespace sinklab
