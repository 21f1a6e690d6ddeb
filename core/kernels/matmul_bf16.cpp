#include "core/kernels/matmul_bf16.h"

#include "core/kernels/matmul_cache_key.h"

#include "core/cpu/cpu_features.h"
#include "core/cpu/isa_dispatch.h"
#include "core/cpu/isa_level.h"
#include "core/kernels/elementwise_layout.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#ifdef SINKLAB_HAVE_OPENMP
#include <omp.h>
#endif

// How a layout is served (measured on oneDNN 2.6.3, Zen 4 with AVX512_BF16; docs/performance.md, "bf16 matmul"):
// - The inputs are always copied (they must be rounded anyway), so each copy is dense in the orientation its
//   source reads fastest (rows contiguous: column-major copy; otherwise row-major, gathering if need be). oneDNN's
//   brgemm takes both orientations for sources and weights, so no input layout needs the swapped form or the loop
//   kernel of kernels::matmul.
// - C is the caller's float32 memory. Where oneDNN would serve C's layout only with "ref:any" (a transposed C, no
//   unit stride), the product goes into a dense float32 scratch and is then copied or added into C: the same
//   roundings as oneDNN's post-ops (alpha * sum, then + C_old).
// - Without bf16 instructions (oneDNN's effective ISA lacks AVX512_BF16, also under SINKLAB_MAX_ISA) the copies
//   are bf16 values widened to float32 and kernels::matmul multiplies them: products of two bf16 values are exact
//   in float32, so the sums are the same kind. oneDNN 2.6's own emulation is gemm:jit at avx512_core (a third of
//   the float32 speed, "ref:any" with alpha and accumulate together) and nothing at avx2.

namespace sinklab::kernels {

// Both inputs' copies (core/kernels/matmul_bf16.isa.cpp): bf16 bits, or bf16 values widened to float32.
SINKLAB_DECLARE_PER_ISA(void round_operands_to_bf16(const float* a, const MatmulOperand& a_op, bool a_column_major,
                                                    uint16_t* a_dst, const float* b, const MatmulOperand& b_op,
                                                    bool b_column_major, uint16_t* b_dst))
SINKLAB_DECLARE_PER_ISA(void round_operands_to_bf16_floats(const float* a, const MatmulOperand& a_op,
                                                           bool a_column_major, float* a_dst, const float* b,
                                                           const MatmulOperand& b_op, bool b_column_major,
                                                           float* b_dst))
SINKLAB_DISPATCHED(void, round_to_bf16_bits, (const float* x, int64_t n, uint16_t* out), (x, n, out))

namespace {

thread_local bool t_inside_execute = false;  // see inside_bf16_onednn_execute()

// A growable, 64-byte aligned buffer: reallocated only when a call needs more than it holds.
class Scratch {
 public:
  template <class T>
  T* reserve(int64_t elements) {
    const size_t bytes = static_cast<size_t>(elements) * sizeof(T);
    if (bytes > capacity_) {
      data_.reset();
      capacity_ = 0;
      data_.reset(static_cast<std::byte*>(::operator new(bytes, std::align_val_t{kAlignment})));
      capacity_ = bytes;
    }
    return reinterpret_cast<T*>(data_.get());
  }

 private:
  static constexpr size_t kAlignment = 64;
  struct Free {
    void operator()(std::byte* p) const { ::operator delete(p, std::align_val_t{kAlignment}); }
  };
  std::unique_ptr<std::byte, Free> data_;
  size_t capacity_ = 0;
};

int64_t elements(const MatmulOperand& op) { return op.dims[0] * op.dims[1] * op.dims[2] * op.dims[3]; }

// A copy's orientation: column-major when the source's rows are contiguous and its columns are not.
bool reads_column_major(const MatmulOperand& op) { return op.strides[3] != 1 && op.strides[2] == 1; }

// The dense layout of a copy of `op` (same dims) in the given orientation.
MatmulOperand copy_layout(const MatmulOperand& op, bool column_major) {
  const MatmulOperand dense = dense_operand(op.dims[0], op.dims[1], op.dims[2], op.dims[3]);
  return column_major ? transposed_view(dense_operand(op.dims[0], op.dims[1], op.dims[3], op.dims[2])) : dense;
}

enum class Path { native, native_dense_c, emulated };

struct CacheEntry {
  Path path = Path::emulated;
  std::string implementation;
  // Native only: C with unit stride down its columns (a weight gradient into a transposed view) is computed
  // as C^T = B^T x A^T, which oneDNN serves with its fast kernels; the copies are then of B^T and A^T.
  bool swapped = false;
  bool a_column_major = false, b_column_major = false;
  MatmulOperand a_copy{}, b_copy{}, c_dense{};  // layouts of the copies and of the dense C scratch
  dnnl::matmul primitive;
  dnnl::memory src, weights, dst;  // no buffer of their own: pointed at the scratch and C per call
  std::array<dnnl_exec_arg_t, 3> args{};
};

struct Bf16Context {
  // The kernel level first: with SINKLAB_MAX_ISA set, that caps oneDNN before its first use.
  IsaLevel isa = kernel_isa_level();
  bool native_isa = cpu_features::onednn_has_native_bf16(isa);
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::mutex mutex;
  std::unordered_map<MatmulKey, CacheEntry, MatmulKeyHash> cache;
  Scratch a_scratch, b_scratch, c_scratch;
};

Bf16Context& context() {
  static Bf16Context ctx;
  return ctx;
}

dnnl::memory::desc memory_desc(const MatmulOperand& op, dnnl::memory::data_type type) {
  return dnnl::memory::desc(dnnl::memory::dims(op.dims.begin(), op.dims.end()), type,
                            dnnl::memory::dims(op.strides.begin(), op.strides.end()));
}

// A bf16 x bf16 -> f32 primitive descriptor with an optimized implementation, or nothing.
std::optional<dnnl::matmul::primitive_desc> optimized_desc(const dnnl::engine& engine, const MatmulOperand& a,
                                                           const MatmulOperand& b, const MatmulOperand& c,
                                                           const dnnl::primitive_attr& attr) {
  using dt = dnnl::memory::data_type;
  try {
#if DNNL_VERSION_MAJOR >= 3
    dnnl::matmul::primitive_desc pd(engine, memory_desc(a, dt::bf16), memory_desc(b, dt::bf16),
                                    memory_desc(c, dt::f32), attr);
#else
    dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(memory_desc(a, dt::bf16), memory_desc(b, dt::bf16), memory_desc(c, dt::f32)), attr,
        engine);
#endif
    if (std::strncmp(pd.impl_info_str(), "ref", 3) == 0) return std::nullopt;
    return pd;
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

CacheEntry build_entry(Bf16Context& ctx, const MatmulKey& key, float alpha, bool may_swap = true) {
  const bool swapped = may_swap && ctx.native_isa && reads_column_major(key.layouts[2]);
  const MatmulOperand a = swapped ? transposed_view(key.layouts[1]) : key.layouts[0];
  const MatmulOperand b = swapped ? transposed_view(key.layouts[0]) : key.layouts[1];
  const MatmulOperand c = swapped ? transposed_view(key.layouts[2]) : key.layouts[2];
  CacheEntry entry;
  entry.swapped = swapped;
  entry.a_column_major = reads_column_major(a);
  entry.b_column_major = reads_column_major(b);
  entry.a_copy = copy_layout(a, entry.a_column_major);
  entry.b_copy = copy_layout(b, entry.b_column_major);
  entry.c_dense = dense_operand(c.dims[0], c.dims[1], c.dims[2], c.dims[3]);
  std::optional<dnnl::matmul::primitive_desc> pd;
  if (ctx.native_isa) {
    entry.path = Path::native;
    pd = optimized_desc(ctx.engine, entry.a_copy, entry.b_copy, c, matmul_attr(key.accumulate, alpha));
    if (!pd && swapped) return build_entry(ctx, key, alpha, /*may_swap=*/false);  // then the dense C, unswapped
    if (!pd) {
      entry.path = Path::native_dense_c;
      pd = optimized_desc(ctx.engine, entry.a_copy, entry.b_copy, entry.c_dense, matmul_attr(false, alpha));
    }
  }
  if (!pd) {
    entry.path = Path::emulated;
    entry.implementation = "emulated:" + matmul_implementation(entry.a_copy, entry.b_copy, c, key.accumulate, alpha);
    return entry;
  }
  const bool dense_c = entry.path == Path::native_dense_c;
  const char* prefix = dense_c ? "onednn-bf16-dense-c:" : swapped ? "onednn-bf16-swapped:" : "onednn-bf16:";
  entry.implementation = prefix + std::string(pd->impl_info_str());
  entry.primitive = dnnl::matmul(*pd);
  entry.src = dnnl::memory(memory_desc(entry.a_copy, dnnl::memory::data_type::bf16), ctx.engine, DNNL_MEMORY_NONE);
  entry.weights =
      dnnl::memory(memory_desc(entry.b_copy, dnnl::memory::data_type::bf16), ctx.engine, DNNL_MEMORY_NONE);
  entry.dst = dnnl::memory(memory_desc(dense_c ? entry.c_dense : c, dnnl::memory::data_type::f32), ctx.engine,
                           DNNL_MEMORY_NONE);
  // C API arguments: the C++ execute() copies its map into a fresh vector on every call.
  entry.args = {
      {{DNNL_ARG_SRC, entry.src.get()}, {DNNL_ARG_WEIGHTS, entry.weights.get()}, {DNNL_ARG_DST, entry.dst.get()}}};
  return entry;
}

// Finds or builds the entry; the caller holds ctx.mutex. Entries are stable until clear.
CacheEntry& lookup(Bf16Context& ctx, const MatmulKey& key, float alpha) {
  auto it = ctx.cache.find(key);
  if (it != ctx.cache.end()) return it->second;
  return ctx.cache.emplace(key, build_entry(ctx, key, alpha)).first->second;
}

// C (+)= the dense scratch `from`, element by element.
void fold_into(const float* from, float* c, const MatmulOperand& cl, bool accumulate) {
  const int64_t b1 = cl.dims[1], m = cl.dims[2], n = cl.dims[3];
  const int64_t rows = cl.dims[0] * b1 * m;
  [[maybe_unused]] const bool parallel = rows * n >= kParallelMinElements;  // used by the pragma only
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r % m, batch = r / m;
    float* out = c + (batch / b1) * cl.strides[0] + (batch % b1) * cl.strides[1] + i * cl.strides[2];
    const float* in = from + r * n;
    for (int64_t j = 0; j < n; ++j) out[j * cl.strides[3]] = accumulate ? out[j * cl.strides[3]] + in[j] : in[j];
  }
}

// Runs the entry's primitive; the layouts only name the call in an error.
void execute(Bf16Context& ctx, const CacheEntry& entry, const MatmulOperand& a, const MatmulOperand& b,
             const MatmulOperand& c) {
  t_inside_execute = true;
  dnnl_status_t status = dnnl_primitive_execute(entry.primitive.get(), ctx.stream.get(),
                                                static_cast<int>(entry.args.size()), entry.args.data());
  if (status == dnnl_success) status = dnnl_stream_wait(ctx.stream.get());
  t_inside_execute = false;
  if (status != dnnl_success)
    throw std::runtime_error("matmul_bf16: oneDNN execution failed (status " +
                             std::to_string(static_cast<int>(status)) + ") for " + describe_matmul(a, b, c));
}

}  // namespace

void matmul_bf16(const float* a, const MatmulOperand& a_layout, const float* b, const MatmulOperand& b_layout,
                 float* c, const MatmulOperand& c_layout, bool accumulate, float alpha) {
  check_matmul_not_in_parallel_region("matmul_bf16");
  const MatmulShape shape = check_matmul_layouts(a_layout, b_layout, c_layout);
  if (shape.batch0 == 0 || shape.batch1 == 0 || shape.m == 0 || shape.n == 0) return;
  if (c == nullptr || (shape.k > 0 && (a == nullptr || b == nullptr)))
    throw std::invalid_argument("matmul_bf16: null data pointer for " + describe_matmul(a_layout, b_layout, c_layout));
  if (shape.k == 0) {  // an empty sum: kernels::matmul zeroes C (or leaves it) without reading A or B
    matmul(a, a_layout, b, b_layout, c, c_layout, accumulate, alpha);
    return;
  }
  const MatmulKey key = matmul_key(a_layout, b_layout, c_layout, accumulate, alpha);
  const auto& [ak, bk, ck] = key.layouts;
  Bf16Context& ctx = context();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  CacheEntry& entry = lookup(ctx, key, alpha);
  if (entry.path == Path::emulated) {
    float* a32 = ctx.a_scratch.reserve<float>(elements(entry.a_copy));
    float* b32 = ctx.b_scratch.reserve<float>(elements(entry.b_copy));
    SINKLAB_PER_ISA(round_operands_to_bf16_floats)(a, ak, entry.a_column_major, a32, b, bk, entry.b_column_major, b32);
    matmul(a32, entry.a_copy, b32, entry.b_copy, c, ck, accumulate, alpha);
    return;
  }
  uint16_t* a16 = ctx.a_scratch.reserve<uint16_t>(elements(entry.a_copy));
  uint16_t* b16 = ctx.b_scratch.reserve<uint16_t>(elements(entry.b_copy));
  if (entry.swapped) {
    SINKLAB_PER_ISA(round_operands_to_bf16)(b, transposed_view(bk), entry.a_column_major, a16, a, transposed_view(ak),
                                            entry.b_column_major, b16);
    entry.src.set_data_handle(a16);
    entry.weights.set_data_handle(b16);
    entry.dst.set_data_handle(c);
    execute(ctx, entry, a_layout, b_layout, c_layout);
    return;
  }
  SINKLAB_PER_ISA(round_operands_to_bf16)(a, ak, entry.a_column_major, a16, b, bk, entry.b_column_major, b16);
  entry.src.set_data_handle(a16);
  entry.weights.set_data_handle(b16);
  if (entry.path == Path::native) {
    entry.dst.set_data_handle(c);
    execute(ctx, entry, a_layout, b_layout, c_layout);
    return;
  }
  float* dense_c = ctx.c_scratch.reserve<float>(elements(entry.c_dense));
  entry.dst.set_data_handle(dense_c);
  execute(ctx, entry, a_layout, b_layout, c_layout);
  fold_into(dense_c, c, ck, accumulate);
}

Bf16MatmulSupport bf16_matmul_support() {
  static const Bf16MatmulSupport support = [] {
    const MatmulOperand square = dense_operand(64, 64);
    const std::string implementation = matmul_bf16_implementation(square, square, square, false);
    return Bf16MatmulSupport{implementation.rfind("onednn-bf16", 0) == 0, implementation};
  }();
  return support;
}

std::string matmul_bf16_implementation(const MatmulOperand& a_layout, const MatmulOperand& b_layout,
                                       const MatmulOperand& c_layout, bool accumulate, float alpha) {
  const MatmulShape shape = check_matmul_layouts(a_layout, b_layout, c_layout);
  if (shape.batch0 == 0 || shape.batch1 == 0 || shape.m == 0 || shape.n == 0 || shape.k == 0) return "empty";
  const MatmulKey key = matmul_key(a_layout, b_layout, c_layout, accumulate, alpha);
  Bf16Context& ctx = context();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  return lookup(ctx, key, alpha).implementation;
}

void clear_matmul_bf16_cache() {
  Bf16Context& ctx = context();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  ctx.cache.clear();
  ctx.a_scratch = Scratch();
  ctx.b_scratch = Scratch();
  ctx.c_scratch = Scratch();
}

bool inside_bf16_onednn_execute() { return t_inside_execute; }

}  // namespace sinklab::kernels
