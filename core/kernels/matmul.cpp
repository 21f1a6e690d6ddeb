#include "core/kernels/matmul.h"

#include "core/cpu/isa_level.h"
#include "core/kernels/matmul_cache_key.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#ifdef SINKLAB_HAVE_OPENMP
#include <omp.h>
#endif

// Which layout takes which path (measured on oneDNN 2.6.3, AVX-512; see docs/performance.md):
// oneDNN 2.6 *accepts* every non-negative stride pattern, but for many it silently picks its
// reference kernel "ref:any", which runs at ~0.1 GFLOP/s (256^3: ~300 ms instead of 0.3 ms). So a
// layout counts as rejected when primitive creation throws *or* returns a "ref" implementation.
//  1. oneDNN, direct ("brg:avx512_core", padded leading dims may get "gemm:jit"): A with k or m unit
//     stride, B with n or k unit stride, C with n unit stride; any batch strides, so head views such
//     as [B, H, T, d] read from or written into a [B, T, H*d] buffer stay on the fast path; size-1
//     batch dims broadcast.
//  2. oneDNN, swapped: C with m unit stride (a transposed output) is computed as C^T = B^T x A^T,
//     which turns it into case 1.
//  3. Below AVX-512 (SINKLAB_MAX_ISA or the CPU) the JIT gemm refuses alpha != 1 with accumulation in
//     one attribute (scaled_attr below has the form it takes).
//  4. Loop kernel (below): anything else, i.e. an operand with no unit stride among its last two dims
//     (e.g. every other column), or a stride of 0 on a rows/cols dim of size > 1.
// The decision is made once per layout and cached like a primitive.
// Size-1 dims have their (unused) stride normalized and stride-0 batch dims of A/B become size-1
// broadcasts first, so equal computations share one cache entry and oneDNN sees plain layouts.

namespace sinklab::kernels {
namespace {

thread_local bool t_inside_execute = false;  // see inside_onednn_execute()

// True when two distinct indices of `op` address the same element.
bool overlaps(const MatmulOperand& op) {
  std::array<std::pair<int64_t, int64_t>, 4> live{};  // (stride, dim) of dims that matter
  size_t count = 0;
  for (size_t i = 0; i < 4; ++i)
    if (op.dims[i] > 1) live[count++] = {op.strides[i], op.dims[i]};
  // Insertion sort by stride (std::sort on this tiny array trips a GCC 12 -Warray-bounds false positive).
  for (size_t i = 1; i < count; ++i)
    for (size_t j = i; j > 0 && live[j] < live[j - 1]; --j) std::swap(live[j], live[j - 1]);
  int64_t extent = 1;  // elements spanned by the dims with smaller strides
  for (size_t i = 0; i < count; ++i) {
    if (live[i].first < extent) return true;
    extent += live[i].first * (live[i].second - 1);
  }
  return false;
}

// Fallback for layouts oneDNN only serves with its reference kernel. Rows of C (over batches) are
// independent, so they are the parallel grain; each row is built in tiles of a stack buffer.
void loop_matmul(const float* a, const MatmulOperand& al, const float* b, const MatmulOperand& bl, float* c,
                 const MatmulOperand& cl, bool accumulate, float alpha) {
  constexpr int64_t kTile = 64;
  constexpr double kParallelFlops = 1e6;  // below this, waking threads costs more than the work
  const int64_t b1 = cl.dims[1], m = cl.dims[2], n = cl.dims[3], k = al.dims[3];
  const int64_t rows = cl.dims[0] * b1 * m;
  const auto batch_stride = [](const MatmulOperand& op, size_t i) { return op.dims[i] == 1 ? 0 : op.strides[i]; };
  const int64_t as0 = batch_stride(al, 0), as1 = batch_stride(al, 1), as2 = al.strides[2], as3 = al.strides[3];
  const int64_t bs0 = batch_stride(bl, 0), bs1 = batch_stride(bl, 1), bs2 = bl.strides[2], bs3 = bl.strides[3];
  const int64_t cs0 = cl.strides[0], cs1 = cl.strides[1], cs2 = cl.strides[2], cs3 = cl.strides[3];
  const bool dot_form = bs2 == 1 && bs3 != 1;  // B's columns are contiguous: dot products read it in order
  const double flops = 2.0 * static_cast<double>(rows) * static_cast<double>(n) * static_cast<double>(k);
  [[maybe_unused]] const bool parallel = flops > kParallelFlops;  // used by the pragma only

#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r % m, batch = r / m, i0 = batch / b1, i1 = batch % b1;
    const float* arow = a + i0 * as0 + i1 * as1 + i * as2;
    const float* bmat = b + i0 * bs0 + i1 * bs1;
    float* crow = c + i0 * cs0 + i1 * cs1 + i * cs2;
    for (int64_t j0 = 0; j0 < n; j0 += kTile) {
      const int64_t width = std::min(kTile, n - j0);
      float sum[kTile];
      if (dot_form) {
        for (int64_t jj = 0; jj < width; ++jj) {
          const float* bcol = bmat + (j0 + jj) * bs3;
          float s = 0.0f;
          for (int64_t kk = 0; kk < k; ++kk) s += arow[kk * as3] * bcol[kk];
          sum[jj] = s;
        }
      } else {
        std::fill(sum, sum + width, 0.0f);
        for (int64_t kk = 0; kk < k; ++kk) {
          const float av = arow[kk * as3];
          const float* brow = bmat + kk * bs2 + j0 * bs3;
          if (bs3 == 1) {
            for (int64_t jj = 0; jj < width; ++jj) sum[jj] += av * brow[jj];
          } else {
            for (int64_t jj = 0; jj < width; ++jj) sum[jj] += av * brow[jj * bs3];
          }
        }
      }
      for (int64_t jj = 0; jj < width; ++jj) {
        float& out = crow[(j0 + jj) * cs3];
        out = accumulate ? out + alpha * sum[jj] : alpha * sum[jj];
      }
    }
  }
}

void fill_zero(float* c, const MatmulOperand& cl) {
  for (int64_t i0 = 0; i0 < cl.dims[0]; ++i0)
    for (int64_t i1 = 0; i1 < cl.dims[1]; ++i1)
      for (int64_t i = 0; i < cl.dims[2]; ++i)
        for (int64_t j = 0; j < cl.dims[3]; ++j)
          c[i0 * cl.strides[0] + i1 * cl.strides[1] + i * cl.strides[2] + j * cl.strides[3]] = 0.0f;
}

enum class Path { onednn, onednn_swapped, loop };

struct CacheEntry {
  Path path = Path::loop;
  std::string implementation;
  dnnl::matmul primitive;
  dnnl::memory::desc src_md, weights_md, dst_md;
  dnnl::memory src, weights, dst;  // no buffer of their own: pointed at the caller's data per call
  // C API arguments: the C++ execute() copies its map into a fresh vector on every call.
  std::array<dnnl_exec_arg_t, 3> args{};
};

struct MatmulContext {
  // The kernel level is chosen first: with SINKLAB_MAX_ISA set, that caps oneDNN before its first use.
  IsaLevel isa = kernel_isa_level();
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::mutex mutex;
  std::unordered_map<MatmulKey, CacheEntry, MatmulKeyHash> cache;
  MatmulCacheStats stats{0, 0, 0};
};

MatmulContext& context() {
  static MatmulContext ctx;
  return ctx;
}

dnnl::memory::desc memory_desc(const MatmulOperand& op) {
  return dnnl::memory::desc(dnnl::memory::dims(op.dims.begin(), op.dims.end()), dnnl::memory::data_type::f32,
                            dnnl::memory::dims(op.strides.begin(), op.strides.end()));
}

// A primitive descriptor with an optimized implementation, or nothing.
std::optional<dnnl::matmul::primitive_desc> optimized_desc(const dnnl::engine& engine, const dnnl::memory::desc& src,
                                                           const dnnl::memory::desc& weights,
                                                           const dnnl::memory::desc& dst,
                                                           const dnnl::primitive_attr& attr) {
  try {
#if DNNL_VERSION_MAJOR >= 3
    dnnl::matmul::primitive_desc pd(engine, src, weights, dst, attr);
#else
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, weights, dst), attr, engine);
#endif
    if (std::strncmp(pd.impl_info_str(), "ref", 3) == 0) return std::nullopt;
    return pd;
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

// The same product with alpha as an output scale: below AVX-512, oneDNN 2.6's JIT gemm takes an
// eltwise_linear or a sum post-op but not both (that pair gets "ref:any"), while it takes an output
// scale with the sum. Only where the first form was refused, so results elsewhere keep their bits.
std::optional<dnnl::primitive_attr> scaled_attr(bool accumulate, float alpha) {
#if DNNL_VERSION_MAJOR >= 3
  (void)accumulate;
  (void)alpha;
  return std::nullopt;  // 3.x has no output scales; its JIT kernels take the post-op pair
#else
  if (!accumulate || alpha == 1.0f) return std::nullopt;
  dnnl::post_ops ops;
  ops.append_sum(1.0f);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {alpha});
  attr.set_post_ops(ops);
  return attr;
#endif
}

// A direct or else swapped primitive descriptor under attr; sets the entry's path and descriptors.
std::optional<dnnl::matmul::primitive_desc> direct_or_swapped(const dnnl::engine& engine, const MatmulKey& key,
                                                              const dnnl::primitive_attr& attr, CacheEntry& entry) {
  const auto& [a, b, c] = key.layouts;
  entry.path = Path::onednn;
  entry.src_md = memory_desc(a);
  entry.weights_md = memory_desc(b);
  entry.dst_md = memory_desc(c);
  auto pd = optimized_desc(engine, entry.src_md, entry.weights_md, entry.dst_md, attr);
  if (pd) return pd;
  entry.path = Path::onednn_swapped;
  entry.src_md = memory_desc(transposed_view(b));
  entry.weights_md = memory_desc(transposed_view(a));
  entry.dst_md = memory_desc(transposed_view(c));
  return optimized_desc(engine, entry.src_md, entry.weights_md, entry.dst_md, attr);
}

CacheEntry build_entry(const dnnl::engine& engine, const MatmulKey& key, float alpha) {
  CacheEntry entry;
  auto pd = direct_or_swapped(engine, key, matmul_attr(key.accumulate, alpha), entry);
  if (const auto scaled = scaled_attr(key.accumulate, alpha); !pd && scaled)
    pd = direct_or_swapped(engine, key, *scaled, entry);
  if (!pd) {
    CacheEntry loop;
    loop.implementation = "loop";
    return loop;
  }
  entry.implementation = std::string(entry.path == Path::onednn ? "onednn:" : "onednn-swapped:") + pd->impl_info_str();
  entry.primitive = dnnl::matmul(*pd);
  entry.src = dnnl::memory(entry.src_md, engine, DNNL_MEMORY_NONE);
  entry.weights = dnnl::memory(entry.weights_md, engine, DNNL_MEMORY_NONE);
  entry.dst = dnnl::memory(entry.dst_md, engine, DNNL_MEMORY_NONE);
  entry.args = {
      {{DNNL_ARG_SRC, entry.src.get()}, {DNNL_ARG_WEIGHTS, entry.weights.get()}, {DNNL_ARG_DST, entry.dst.get()}}};
  return entry;
}

// Finds or builds the entry; the caller holds ctx.mutex. Entries are stable until clear.
CacheEntry& lookup(MatmulContext& ctx, const MatmulKey& key, float alpha) {
  auto it = ctx.cache.find(key);
  if (it != ctx.cache.end()) {
    ++ctx.stats.hits;
    return it->second;
  }
  ++ctx.stats.misses;
  CacheEntry& entry = ctx.cache.emplace(key, build_entry(ctx.engine, key, alpha)).first->second;
  if (entry.path != Path::loop) ++ctx.stats.primitives;
  return entry;
}

}  // namespace

MatmulOperand dense_operand(int64_t batch0, int64_t batch1, int64_t rows, int64_t cols) {
  return {{batch0, batch1, rows, cols}, {batch1 * rows * cols, rows * cols, cols, 1}};
}

MatmulOperand transposed_view(const MatmulOperand& op) {
  return {{op.dims[0], op.dims[1], op.dims[3], op.dims[2]},
          {op.strides[0], op.strides[1], op.strides[3], op.strides[2]}};
}

MatmulShape check_matmul_layouts(const MatmulOperand& a, const MatmulOperand& b, const MatmulOperand& c) {
  const auto fail = [&](const std::string& why) {
    throw std::invalid_argument("matmul: " + why + " in " + describe_matmul(a, b, c));
  };
  for (const MatmulOperand* op : {&a, &b, &c})
    for (size_t i = 0; i < 4; ++i) {
      if (op->dims[i] < 0) fail("negative dimension");
      if (op->strides[i] < 0) fail("negative stride (not supported)");
    }
  if (a.dims[3] != b.dims[2])
    fail("inner dimensions disagree (A has " + std::to_string(a.dims[3]) + " columns, B has " +
         std::to_string(b.dims[2]) + " rows)");
  if (a.dims[2] != c.dims[2])
    fail("C has " + std::to_string(c.dims[2]) + " rows but A has " + std::to_string(a.dims[2]));
  if (b.dims[3] != c.dims[3])
    fail("C has " + std::to_string(c.dims[3]) + " columns but B has " + std::to_string(b.dims[3]));
  for (size_t i = 0; i < 2; ++i) {
    if (a.dims[i] != c.dims[i] && a.dims[i] != 1) fail("batch dim " + std::to_string(i) + " of A is neither C's nor 1");
    if (b.dims[i] != c.dims[i] && b.dims[i] != 1) fail("batch dim " + std::to_string(i) + " of B is neither C's nor 1");
  }
  if (overlaps(c)) fail("C's strides make distinct elements overlap");
  return {c.dims[0], c.dims[1], c.dims[2], c.dims[3], a.dims[3]};
}

void matmul(const float* a, const MatmulOperand& a_layout, const float* b, const MatmulOperand& b_layout, float* c,
            const MatmulOperand& c_layout, bool accumulate, float alpha) {
  check_matmul_not_in_parallel_region("matmul");
  const MatmulShape shape = check_matmul_layouts(a_layout, b_layout, c_layout);
  if (shape.batch0 == 0 || shape.batch1 == 0 || shape.m == 0 || shape.n == 0) return;
  if (c == nullptr || (shape.k > 0 && (a == nullptr || b == nullptr)))
    throw std::invalid_argument("matmul: null data pointer for " + describe_matmul(a_layout, b_layout, c_layout));
  if (shape.k == 0) {  // an empty sum: C = 0, or C unchanged when accumulating; A and B are never read
    if (!accumulate) fill_zero(c, c_layout);
    return;
  }
  const MatmulKey key = matmul_key(a_layout, b_layout, c_layout, accumulate, alpha);
  MatmulContext& ctx = context();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  CacheEntry& entry = lookup(ctx, key, alpha);
  if (entry.path == Path::loop) {
    loop_matmul(a, key.layouts[0], b, key.layouts[1], c, key.layouts[2], accumulate, alpha);
    return;
  }
  // oneDNN never writes its sources; the handles are non-const only by API shape.
  const bool swapped = entry.path == Path::onednn_swapped;
  entry.src.set_data_handle(const_cast<float*>(swapped ? b : a));
  entry.weights.set_data_handle(const_cast<float*>(swapped ? a : b));
  entry.dst.set_data_handle(c);
  t_inside_execute = true;
  dnnl_status_t status = dnnl_primitive_execute(entry.primitive.get(), ctx.stream.get(),
                                                static_cast<int>(entry.args.size()), entry.args.data());
  if (status == dnnl_success) status = dnnl_stream_wait(ctx.stream.get());
  t_inside_execute = false;
  if (status != dnnl_success)
    throw std::runtime_error("matmul: oneDNN execution failed (status " + std::to_string(static_cast<int>(status)) +
                             ") for " + describe_matmul(a_layout, b_layout, c_layout));
}

bool inside_onednn_execute() { return t_inside_execute; }

MatmulCacheStats matmul_cache_stats() {
  MatmulContext& ctx = context();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  return ctx.stats;
}

void clear_matmul_cache() {
  MatmulContext& ctx = context();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  ctx.cache.clear();
  ctx.stats = {0, 0, 0};
}

std::string matmul_implementation(const MatmulOperand& a_layout, const MatmulOperand& b_layout,
                                  const MatmulOperand& c_layout, bool accumulate, float alpha) {
  const MatmulShape shape = check_matmul_layouts(a_layout, b_layout, c_layout);
  if (shape.batch0 == 0 || shape.batch1 == 0 || shape.m == 0 || shape.n == 0 || shape.k == 0) return "empty";
  const MatmulKey key = matmul_key(a_layout, b_layout, c_layout, accumulate, alpha);
  MatmulContext& ctx = context();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  return lookup(ctx, key, alpha).implementation;
}

}  // namespace sinklab::kernels
