#pragma once
// Token ids for a model that reads tokens directly (GPT-2 weights, models/gpt2_loader.h): a .npy file
// of integers a user made with their own tokenizer, 1-D [L] (one window) or 2-D [windows, L].
#include <cstdint>
#include <filesystem>
#include <vector>

namespace sinklab {

struct TokenWindows {
  int64_t windows = 0, length = 0;
  std::vector<int32_t> ids;  // [windows, length], row-major
  const int32_t* window(int64_t w) const { return ids.data() + w * length; }
};

// Reads the ids (read_npy_integers, run_files/npy.h: '<i4', '<i8', ... ) and checks them against the
// model: rank 1 or 2, 1 <= L <= max_length (the model's positions), at least one window, every id in
// [0, vocab). Throws NpyError naming the file and, for a bad id, its window, position and value.
TokenWindows read_token_windows(const std::filesystem::path& path, int vocab, int max_length);

}  // namespace sinklab
