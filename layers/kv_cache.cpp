#include "layers/kv_cache.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace sinklab {

KvCache::KvCache(int layers, int kv_heads, int head_dim, int64_t capacity)
    : kv_heads_(kv_heads), head_dim_(head_dim), capacity_(capacity) {
  if (layers < 1 || kv_heads < 1 || head_dim < 1 || capacity < 1)
    throw std::invalid_argument("KvCache: layers, heads, head width and capacity must be >= 1");
  const size_t floats = static_cast<size_t>(kv_heads) * static_cast<size_t>(capacity) * static_cast<size_t>(head_dim);
  keys_.assign(static_cast<size_t>(layers), std::vector<float>(floats));
  values_.assign(static_cast<size_t>(layers), std::vector<float>(floats));
}

void KvCache::begin_append(int64_t count) {
  if (count < 1 || size_ + count > capacity_)
    throw std::length_error("KV cache: " + std::to_string(count) + " new token(s) after " + std::to_string(size_) +
                            " do not fit its " + std::to_string(capacity_) + " slots");
  appending_ = count;
}

void KvCache::commit() {
  size_ += appending_;
  appending_ = 0;
}

void KvCache::evict(int64_t first, int64_t count) {
  if (first < 0 || count < 0 || first + count > size_)
    throw std::out_of_range("KV cache: evicting tokens [" + std::to_string(first) + ", " +
                            std::to_string(first + count) + ") of " + std::to_string(size_));
  const int64_t moved = size_ - first - count;
  for (auto* blocks : {&keys_, &values_})
    for (std::vector<float>& layer : *blocks)
      for (int64_t h = 0; h < kv_heads_; ++h) {
        float* head = layer.data() + h * capacity_ * head_dim_;
        std::memmove(head + first * head_dim_, head + (first + count) * head_dim_,
                     static_cast<size_t>(moved * head_dim_) * sizeof(float));
      }
  size_ -= count;
}

}  // namespace sinklab
