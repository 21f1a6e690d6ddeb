#pragma once
// The keys and values of the tokens a model has read, per layer, for decoding token by token instead of
// recomputing every window (StreamingLLM's cache, `sinklab eval MODEL_DIR --stream`). Keys are kept
// before RoPE and turned at every step by their index in the cache, so evicting tokens re-assigns the
// positions of the later ones as StreamingLLM does.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sinklab {

class KvCache {
 public:
  KvCache(int layers, int kv_heads, int head_dim, int64_t capacity);

  int64_t size() const { return size_; }  // tokens every layer holds
  int64_t capacity() const { return capacity_; }
  int layers() const { return static_cast<int>(keys_.size()); }
  int kv_heads() const { return kv_heads_; }
  int head_dim() const { return head_dim_; }
  // Layer l's keys (before RoPE) and values, [kv_heads, capacity, head_dim]; rows 0 .. size() - 1 hold
  // the tokens read so far, then the rows the current pass appends.
  float* keys(int layer) { return keys_[static_cast<size_t>(layer)].data(); }
  float* values(int layer) { return values_[static_cast<size_t>(layer)].data(); }

  // A pass over `count` new tokens: throws std::length_error when they do not fit. Each attention layer
  // writes its rows size() .. size() + count - 1; commit() then makes them part of the cache.
  void begin_append(int64_t count);
  int64_t appending() const { return appending_; }
  void commit();
  // Drops tokens [first, first + count); the later ones move down.
  void evict(int64_t first, int64_t count);
  void clear() { size_ = appending_ = 0; }

 private:
  int kv_heads_, head_dim_;
  int64_t capacity_;
  int64_t size_ = 0, appending_ = 0;
  std::vector<std::vector<float>> keys_, values_;
};

// Where a model's attention layers find the cache of the current pass (none by default), as they find
// their hooks (core/observe/activation_hooks.h).
struct KvCacheSlot {
  KvCache* cache = nullptr;
};

}  // namespace sinklab
