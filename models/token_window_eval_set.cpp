#include "models/token_window_eval_set.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/observe/position_roles.h"
#include "data/task.h"

namespace sinklab {

int64_t token_windows_in_stream(int64_t stream_tokens, int seq_len) {
  return seq_len > 0 ? std::max<int64_t>(0, stream_tokens) / seq_len : 0;
}

std::vector<int32_t> cut_token_windows(std::span<const int32_t> stream, int64_t windows, int seq_len,
                                       std::optional<int32_t> bos) {
  if (seq_len < 2)
    throw std::invalid_argument("token windows need at least 2 tokens (one to predict), got " +
                                std::to_string(seq_len));
  if (windows < 1 || token_windows_in_stream(static_cast<int64_t>(stream.size()), seq_len) < windows)
    throw std::invalid_argument(std::to_string(windows) + " window(s) of " + std::to_string(seq_len) + " tokens need " +
                                std::to_string(windows * seq_len) + " tokens; the text has " +
                                std::to_string(stream.size()));
  const auto T = static_cast<std::size_t>(seq_len);
  std::vector<int32_t> ids;
  ids.reserve(static_cast<std::size_t>(windows) * T);
  for (int64_t w = 0; w < windows; ++w) {
    const auto first = stream.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(w) * T);
    if (bos) ids.push_back(*bos);
    ids.insert(ids.end(), first, first + static_cast<std::ptrdiff_t>(bos ? T - 1 : T));
  }
  return ids;
}

EvalSet token_window_eval_set(std::span<const int32_t> ids, int64_t windows, int seq_len, int vocab) {
  if (windows < 1 || seq_len < 2 || static_cast<int64_t>(ids.size()) != windows * seq_len ||
      windows > std::numeric_limits<int>::max())
    throw std::invalid_argument("token windows: " + std::to_string(ids.size()) + " ids are not " +
                                std::to_string(windows) + " windows of " + std::to_string(seq_len) +
                                " tokens (at least 2 each)");
  // width_key names what sets the width in messages: the model's vocabulary, not a config key.
  BatchBuffers b(next_token_shape(seq_len, vocab, "vocab_size"), static_cast<int>(windows));
  const auto T = static_cast<std::size_t>(seq_len);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab)
      throw std::invalid_argument("token id " + std::to_string(ids[i]) + " at window " + std::to_string(i / T) +
                                  ", position " + std::to_string(i % T) + " is outside the model's vocabulary [0, " +
                                  std::to_string(vocab) + ")");
    b.input_ids[i] = ids[i];
    // Position i predicts the token at i + 1 of the same window; the last position has nothing to predict.
    b.target_ids[i] = i % T + 1 < T ? ids[i + 1] : -1;
    b.roles[i] = i % T == 0 ? position_role::kSinkKey : uint8_t{0};
  }
  return EvalSet(std::move(b));
}

}  // namespace sinklab
