#include "report/explorer/attention_snapshots.h"

#include <algorithm>


namespace sinklab {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& why) { throw NpzError("attention snapshots " + where + ": " + why); }

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

const NpzArray& array(const NpzArrays& arrays, const std::string& name, const std::string& path) {
  const auto it = arrays.find(name);
  if (it == arrays.end()) fail(path, "has no array '" + name + "'");
  return it->second;
}

const std::vector<int64_t>& integers(const NpzArray& a, const std::string& name, size_t rank, const std::string& path) {
  if (a.is_float()) fail(path, "'" + name + "' has dtype " + a.dtype + ", expected integers");
  if (a.shape.size() != rank) fail(path, "'" + name + "' has shape " + shape_text(a.shape) + ", expected " + std::to_string(rank) + " dimension(s)");
  return a.integers;
}

void check_positions(const std::vector<int64_t>& positions, const std::string& name, int64_t seq_len, const std::string& path) {
  for (const int64_t p : positions)
    if (p < 0 || p >= seq_len) fail(path, "'" + name + "' holds position " + std::to_string(p) + " outside [0, seq_len = " + std::to_string(seq_len) + ")");
}

}  // namespace

AttentionSnapshots attention_snapshots_from(const NpzArrays& arrays, const std::string& path) {
  AttentionSnapshots s;

  const NpzArray& seq_len = array(arrays, "seq_len", path);
  if (seq_len.element_count() != 1) fail(path, "'seq_len' has shape " + shape_text(seq_len.shape) + ", expected one number");
  s.seq_len = seq_len.is_float() ? static_cast<int64_t>(seq_len.floats[0]) : seq_len.integers[0];
  if (s.seq_len <= 0) fail(path, "'seq_len' is " + std::to_string(s.seq_len) + ", expected a positive length");

  s.steps = integers(array(arrays, "steps", path), "steps", 1, path);
  if (s.steps.empty()) fail(path, "'steps' is empty: no snapshot was stored");
  if (!std::is_sorted(s.steps.begin(), s.steps.end()) || std::adjacent_find(s.steps.begin(), s.steps.end()) != s.steps.end())
    fail(path, "'steps' is not strictly increasing");
  s.rows = integers(array(arrays, "rows", path), "rows", 1, path);
  s.cols = integers(array(arrays, "cols", path), "cols", 1, path);
  check_positions(s.rows, "rows", s.seq_len, path);
  check_positions(s.cols, "cols", s.seq_len, path);

  const NpzArray& mean = array(arrays, "mean", path);
  if (!mean.is_float()) fail(path, "'mean' has dtype " + mean.dtype + ", expected float16 or float32");
  const std::vector<int64_t> expected = {static_cast<int64_t>(s.steps.size()), mean.shape.size() == 5 ? mean.shape[1] : -1,
                                         mean.shape.size() == 5 ? mean.shape[2] : -1, static_cast<int64_t>(s.rows.size()),
                                         static_cast<int64_t>(s.cols.size())};
  if (mean.shape != expected || expected[1] <= 0 || expected[2] <= 0)
    fail(path, "'mean' has shape " + shape_text(mean.shape) + ", expected [steps " + std::to_string(s.steps.size()) +
                   ", layers, heads, rows " + std::to_string(s.rows.size()) + ", cols " + std::to_string(s.cols.size()) + "]");
  s.layers = mean.shape[1];
  s.heads = mean.shape[2];
  s.mean = mean.floats;
  if (const auto it = arrays.find("example"); it != arrays.end()) {
    if (!it->second.is_float() || it->second.shape != mean.shape)
      fail(path, "'example' has dtype " + it->second.dtype + " and shape " + shape_text(it->second.shape) + ", expected floats shaped like 'mean' " +
                     shape_text(mean.shape));
    s.example = it->second.floats;
  }
  if (const auto it = arrays.find("roles"); it != arrays.end()) {
    const auto& roles = integers(it->second, "roles", 1, path);
    if (static_cast<int64_t>(roles.size()) != s.seq_len)
      fail(path, "'roles' has " + std::to_string(roles.size()) + " entries, expected seq_len = " + std::to_string(s.seq_len));
    for (const int64_t r : roles)
      if (r < 0 || r > 255) fail(path, "'roles' holds " + std::to_string(r) + ", not a byte of role flags");
    s.roles.assign(roles.begin(), roles.end());
  }
  if (const auto it = arrays.find("tokens"); it != arrays.end()) {
    s.tokens = integers(it->second, "tokens", 1, path);
    if (static_cast<int64_t>(s.tokens.size()) != s.seq_len)
      fail(path, "'tokens' has " + std::to_string(s.tokens.size()) + " entries, expected seq_len = " + std::to_string(s.seq_len));
  }
  return s;
}

AttentionSnapshots read_attention_snapshots(const std::filesystem::path& path) {
  AttentionSnapshots s = attention_snapshots_from(read_npz(path), path.string());
  s.source = path.filename().string();
  return s;
}

}  // namespace sinklab
