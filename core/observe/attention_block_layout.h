#pragma once
// Where the [T, T] attention block of each (batch item, head) starts in a weights buffer. Attention
// keeps its heads head-major ([H, B, T, T]); files and tests often use batch-major [B, H, T, T].
#include <cstdint>

namespace sinklab {

struct AttentionBlockLayout {
  int64_t batch_stride = 0;  // elements from sample b's block to sample b+1's (same head)
  int64_t head_stride = 0;   // elements from head h's block to head h+1's (same sample)

  static AttentionBlockLayout batch_major(int64_t heads, int64_t seq_len) {
    return {heads * seq_len * seq_len, seq_len * seq_len};
  }
  static AttentionBlockLayout head_major(int64_t batch, int64_t seq_len) {
    return {seq_len * seq_len, batch * seq_len * seq_len};
  }
  const float* block(const float* base, int64_t b, int64_t h) const {
    return base + b * batch_stride + h * head_stride;
  }
};

}  // namespace sinklab
