// Replaces the global operator new/delete of the test_core binary with counting versions over
// malloc/free. Only the count is observable; behaviour is unchanged.
#include "tests/core/allocation_counter.h"

#include "core/kernels/matmul.h"
#include "core/kernels/matmul_bf16.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<size_t> g_allocations{0};
std::atomic<size_t> g_onednn_allocations{0};  // the part of g_allocations made inside oneDNN's execute

void count_allocation() {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (sinklab::kernels::inside_onednn_execute() || sinklab::kernels::inside_bf16_onednn_execute())
    g_onednn_allocations.fetch_add(1, std::memory_order_relaxed);
}

void* counted_malloc(std::size_t n) {
  count_allocation();
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}

void* counted_aligned(std::size_t n, std::align_val_t al) {
  count_allocation();
  const auto a = static_cast<std::size_t>(al);
  const std::size_t rounded = (n + a - 1) / a * a;  // aligned_alloc wants a multiple of the alignment
  if (void* p = std::aligned_alloc(a, rounded ? rounded : a)) return p;
  throw std::bad_alloc();
}

}  // namespace

namespace sinklab::testing {
size_t heap_allocation_count() { return g_allocations.load(std::memory_order_relaxed); }
size_t heap_allocation_count_outside_onednn() {
  return g_allocations.load(std::memory_order_relaxed) - g_onednn_allocations.load(std::memory_order_relaxed);
}
}  // namespace sinklab::testing

void* operator new(std::size_t n) { return counted_malloc(n); }
void* operator new[](std::size_t n) { return counted_malloc(n); }
void* operator new(std::size_t n, std::align_val_t al) { return counted_aligned(n, al); }
void* operator new[](std::size_t n, std::align_val_t al) { return counted_aligned(n, al); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
