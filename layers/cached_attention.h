#pragma once
// Softmax attention of T new query rows against every key of a KV cache (layers/kv_cache.h): the
// decode step, where a row's keys are the N cached tokens rather than a square [T, T] block. Query row
// i sits at position first + i and reads keys 0 .. first + i (and, with a window W, only those with
// first + i - W < j). Plain arrays: decoding runs without gradients.
#include <cstdint>

namespace sinklab {

struct CachedAttentionShape {
  int64_t heads, kv_heads, rows, keys, head_dim;  // H, KV (H % KV == 0), T, N, D
  int64_t first = 0;                               // position of query row 0 (N - T for a decode)
  int64_t window = 0;                              // 0 = every earlier key
  float scale = 1.0f;                              // logits = scale * q.k
};

// q [H, T, D] (turned), k [KV, N, D] (turned), v [KV, N, D] -> out [H, T, D]; query head h reads
// key/value head h / (H / KV). `scratch` holds H * N floats. Heads spread over the threads.
void cached_softmax_attention(const CachedAttentionShape& s, const float* q, const float* k, const float* v,
                              float* scratch, float* out);

}  // namespace sinklab
