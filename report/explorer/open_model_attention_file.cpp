#include "report/explorer/open_model_attention_file.h"

#include <algorithm>
#include <cmath>

#include "core/io/file_write.h"
#include "run_files/named_tensor.h"
#include "run_files/npy.h"
#include "run_files/npz_file.h"
#include "run_files/npz_reader.h"

namespace sinklab {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw WindowAttentionFileError("window attention " + where + ": " + why);
}

int64_t weight_count(int64_t layers, int64_t heads, int64_t seq_len) { return layers * heads * seq_len * seq_len; }

}  // namespace

std::string encode_window_attention(const WindowAttention& a, const std::string& where) {
  const int64_t T = a.seq_len;
  if (a.layers < 1 || a.heads < 1 || T < 1) fail(where, "layers, heads and seq_len must be >= 1");
  if (weight_count(a.layers, a.heads, T) > kMaxWindowAttentionValues)
    fail(where, std::to_string(weight_count(a.layers, a.heads, T)) + " weights, above the cap of " +
                    std::to_string(kMaxWindowAttentionValues));
  if (a.tokens.size() != static_cast<size_t>(T) || a.token_labels.size() != static_cast<size_t>(T))
    fail(where, "tokens and token_labels must hold seq_len (" + std::to_string(T) + ") values");
  NpzTextEntries entries;
  try {
    entries.emplace_back("weights.npy",
                         encode_npy_vector("<f4", a.weights, {a.layers, a.heads, T, T}, where + " weights"));
    entries.emplace_back("tokens.npy", encode_npy_vector("<i4", a.tokens, {T}, where + " tokens"));
    entries.emplace_back("token_labels.npy", encode_npy_byte_strings(a.token_labels, where + " token_labels"));
    entries.emplace_back("window.npy", encode_npy_vector("<i8", std::vector<int64_t>{a.window}, {}, where + " window"));
    entries.emplace_back("seq_len.npy", encode_npy_vector("<i8", std::vector<int64_t>{T}, {}, where + " seq_len"));
    return encode_npz({}, entries, where);
  } catch (const NpyError& e) {
    fail(where, e.what());
  } catch (const NpzError& e) {
    fail(where, e.what());
  }
}

void write_window_attention(const std::filesystem::path& path, const WindowAttention& attention) {
  write_file_atomically(path, encode_window_attention(attention, path.string()));
}

WindowAttention read_window_attention(const std::filesystem::path& path) {
  const std::string where = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail(where, "no such file; run sinklab eval MODEL_DIR again to write it");
  NpzArrays arrays;
  try {
    arrays = read_npz(path);
  } catch (const NpzError& e) {
    fail(where, e.what());
  }
  const auto array = [&](const std::string& name) -> const NpzArray& {
    const auto it = arrays.find(name);
    if (it == arrays.end()) fail(where, "has no array '" + name + "'");
    return it->second;
  };
  const auto ints = [&](const std::string& name) -> const NpzArray& {
    const NpzArray& a = array(name);
    if (a.is_float() || a.is_strings())
      fail(where, "array '" + name + "' has dtype " + a.dtype + ", expected integers");
    return a;
  };
  const auto scalar = [&](const std::string& name, int64_t lo, int64_t hi) {
    const NpzArray& a = ints(name);
    if (a.element_count() != 1)
      fail(where, "array '" + name + "' has shape " + shape_text(a.shape) + ", expected one number");
    if (a.integers[0] < lo || a.integers[0] > hi)
      fail(where, name + " " + std::to_string(a.integers[0]) + " is out of range");
    return a.integers[0];
  };
  WindowAttention a;
  a.seq_len = static_cast<int>(scalar("seq_len", 1, 1 << 20));
  a.window = scalar("window", 0, int64_t{1} << 40);
  const NpzArray& weights = array("weights");
  if (!weights.is_float()) fail(where, "array 'weights' has dtype " + weights.dtype + ", expected floats");
  const std::vector<int64_t>& shape = weights.shape;
  if (shape.size() != 4 || shape[0] < 1 || shape[1] < 1 || shape[0] > 65536 || shape[1] > 65536 ||
      shape[2] != a.seq_len || shape[3] != a.seq_len)
    fail(where, "array 'weights' has shape " + shape_text(shape) + ", expected [layers, heads, " +
                    std::to_string(a.seq_len) + ", " + std::to_string(a.seq_len) + "]");
  a.layers = static_cast<int>(shape[0]);
  a.heads = static_cast<int>(shape[1]);
  if (weight_count(a.layers, a.heads, a.seq_len) > kMaxWindowAttentionValues)
    fail(where, "holds " + std::to_string(weight_count(a.layers, a.heads, a.seq_len)) + " weights, above the cap of " +
                    std::to_string(kMaxWindowAttentionValues));
  a.weights = weights.floats;
  if (!std::all_of(a.weights.begin(), a.weights.end(), [](float w) { return std::isfinite(w); }))
    fail(where, "array 'weights' holds a value that is not finite");
  const NpzArray& tokens = ints("tokens");
  if (tokens.shape != std::vector<int64_t>{a.seq_len})
    fail(where,
         "array 'tokens' has shape " + shape_text(tokens.shape) + ", expected [" + std::to_string(a.seq_len) + "]");
  for (const int64_t t : tokens.integers) {
    if (t < 0 || t > INT32_MAX) fail(where, "array 'tokens' holds " + std::to_string(t) + ", not a token id");
    a.tokens.push_back(static_cast<int32_t>(t));
  }
  const NpzArray& labels = array("token_labels");
  if (!labels.is_strings()) fail(where, "array 'token_labels' has dtype " + labels.dtype + ", expected byte strings");
  if (labels.shape != std::vector<int64_t>{a.seq_len})
    fail(where, "array 'token_labels' has shape " + shape_text(labels.shape) + ", expected [" +
                    std::to_string(a.seq_len) + "]");
  a.token_labels = labels.strings;
  return a;
}

}  // namespace sinklab
