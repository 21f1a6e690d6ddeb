#pragma once
// <eval json stem>.attention.npz beside the output of `sinklab eval MODEL_DIR`: the attention weights of
// one window of the text, every layer and head, with the window's tokens, for the explorer page of an
// open model on a text (report/explorer/open_model_explorer.h). One NumPy archive that numpy.load opens
// alone, written with the project's .npy/.npz writers (run_files/npy.h, run_files/npz_file.h):
//   weights float32 [layers, heads, T, T] (row i: query i's weights over keys 0..T-1, future keys 0);
//   tokens int32 [T] (the window's ids, BOS first when the evaluation put one in front);
//   token_labels |S<width> [T] (the tokenizer's decode of each id alone, as bytes; the id as decimal
//   text when the folder has no tokenizer.json); window int64 [] (which evaluation window); seq_len int64 [] (T).
// Written atomically. The size is bounded: kMaxWindowAttentionValues weights at most (64 MiB).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "run_files/run_summary.h"  // RunFileError

namespace sinklab {

class WindowAttentionFileError : public RunFileError {
 public:
  using RunFileError::RunFileError;
};

// layers x heads x T x T weights at most: 16 Mi float32 values, 64 MiB in the file and about 85 MB of
// base64 in the page. pythia-160m (144 heads) fits up to T = 341, TinyLlama (704 heads) up to T = 154.
inline constexpr int64_t kMaxWindowAttentionValues = int64_t{1} << 24;

struct WindowAttention {
  int layers = 0, heads = 0, seq_len = 0;
  int64_t window = 0;
  std::vector<int32_t> tokens;             // [T]
  std::vector<std::string> token_labels;   // [T], bytes as decoded
  std::vector<float> weights;              // [layers, heads, T, T]
  bool operator==(const WindowAttention&) const = default;
};

// The archive's bytes. Throws WindowAttentionFileError when the arrays do not fit their dimensions or
// the weights are above kMaxWindowAttentionValues.
std::string encode_window_attention(const WindowAttention& attention, const std::string& where);
void write_window_attention(const std::filesystem::path& path, const WindowAttention& attention);

// Reads a file written by write_window_attention. Throws WindowAttentionFileError naming the file and
// what is wrong: missing, truncated or corrupt archive, a missing array, a wrong type or shape, a
// weight that is not finite.
WindowAttention read_window_attention(const std::filesystem::path& path);

}  // namespace sinklab
