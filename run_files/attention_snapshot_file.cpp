#include "run_files/attention_snapshot_file.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "core/io/file_write.h"
#include "run_files/named_tensor.h"
#include "run_files/npy.h"
#include "run_files/npz_file.h"
#include "run_files/npz_reader.h"

namespace sinklab {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw AttentionSnapshotFileError("attention snapshots " + where + ": " + why);
}

}  // namespace

std::string encode_attention_snapshots(const AttentionSnapshots& s, const std::string& where) {
  const int64_t S = static_cast<int64_t>(s.steps.size()), R = static_cast<int64_t>(s.side());
  const std::vector<int64_t> maps_shape{S, s.layers, s.heads, R, R};
  if (s.roles.size() != static_cast<size_t>(s.seq_len) || (!s.tokens.empty() && s.tokens.size() != s.roles.size()) ||
      (!s.token_labels.empty() && s.token_labels.size() != s.tokens.size()))
    fail(where, "roles, tokens and token_labels must hold seq_len (" + std::to_string(s.seq_len) + ") values");
  NpzTextEntries entries;
  try {
    entries.emplace_back("steps.npy", encode_npy_vector("<i8", s.steps, {S}, where + " steps"));
    entries.emplace_back("mean.npy", encode_npy_vector("<f4", s.mean, maps_shape, where + " mean"));
    entries.emplace_back("example.npy", encode_npy_vector("<f4", s.example, maps_shape, where + " example"));
    entries.emplace_back("rows.npy", encode_npy_vector("<i4", s.positions, {R}, where + " rows"));
    entries.emplace_back("cols.npy", encode_npy_vector("<i4", s.positions, {R}, where + " cols"));
    entries.emplace_back("roles.npy", encode_npy_vector("|u1", s.roles, {s.seq_len}, where + " roles"));
    if (!s.tokens.empty()) entries.emplace_back("tokens.npy", encode_npy_vector("<i4", s.tokens, {s.seq_len}, where + " tokens"));
    if (!s.token_labels.empty()) entries.emplace_back("token_labels.npy", encode_npy_byte_strings(s.token_labels, where + " token_labels"));
    const std::vector<int64_t> seq_len{s.seq_len};
    entries.emplace_back("seq_len.npy", encode_npy_vector("<i8", seq_len, {}, where + " seq_len"));
    return encode_npz({}, entries, where);
  } catch (const NpyError& e) {
    fail(where, e.what());
  } catch (const NpzError& e) {
    fail(where, e.what());
  }
}

void write_attention_snapshots(const std::filesystem::path& path, const AttentionSnapshots& snapshots) {
  write_file_atomically(path, encode_attention_snapshots(snapshots, path.string()));
}

AttentionSnapshots decode_attention_snapshots(const NpzArrays& arrays, const std::string& where) {
  const auto array = [&](const std::string& name) -> const NpzArray& {
    const auto it = arrays.find(name);
    if (it == arrays.end()) fail(where, "has no array '" + name + "'");
    return it->second;
  };
  const auto expect_shape = [&](const std::string& name, const std::vector<int64_t>& got, const std::vector<int64_t>& want) {
    if (got != want) fail(where, "array '" + name + "' has shape " + shape_text(got) + ", expected " + shape_text(want));
  };
  const auto ints = [&](const std::string& name) -> const NpzArray& {
    const NpzArray& a = array(name);
    if (a.is_float() || a.is_strings()) fail(where, "array '" + name + "' has dtype " + a.dtype + ", expected integers");
    return a;
  };
  const auto floats = [&](const std::string& name) -> const NpzArray& {
    const NpzArray& a = array(name);
    if (!a.is_float()) fail(where, "array '" + name + "' has dtype " + a.dtype + ", expected floats");
    return a;
  };

  AttentionSnapshots s;
  const NpzArray& seq_len = ints("seq_len");
  if (seq_len.element_count() != 1) fail(where, "array 'seq_len' has shape " + shape_text(seq_len.shape) + ", expected one number");
  if (seq_len.integers[0] < 1 || seq_len.integers[0] > (int64_t{1} << 24))
    fail(where, "seq_len " + std::to_string(seq_len.integers[0]) + " is out of range");
  s.seq_len = static_cast<int>(seq_len.integers[0]);
  s.positions = snapshot_positions(s.seq_len);
  const int64_t R = static_cast<int64_t>(s.positions.size());
  for (const char* axis : {"rows", "cols"}) {
    const NpzArray& a = ints(axis);
    expect_shape(axis, a.shape, {R});
    if (!std::equal(a.integers.begin(), a.integers.end(), s.positions.begin()))
      fail(where, std::string("array '") + axis + "' is not the documented positions for seq_len " + std::to_string(s.seq_len));
  }
  const NpzArray& steps = ints("steps");
  if (steps.shape.size() != 1) fail(where, "array 'steps' has shape " + shape_text(steps.shape) + ", expected [S]");
  s.steps = steps.integers;
  if (s.steps.empty()) fail(where, "array 'steps' is empty: no snapshot was stored");
  if (!std::is_sorted(s.steps.begin(), s.steps.end()) || std::adjacent_find(s.steps.begin(), s.steps.end()) != s.steps.end())
    fail(where, "array 'steps' is not strictly increasing");
  if (s.steps.front() < 0) fail(where, "array 'steps' starts at step " + std::to_string(s.steps.front()));
  const NpzArray& mean = floats("mean");
  const NpzArray& example = floats("example");
  if (mean.shape.size() != 5) fail(where, "array 'mean' has shape " + shape_text(mean.shape) + ", expected [S, layers, heads, R, C]");
  if (mean.shape[1] < 1 || mean.shape[2] < 1 || mean.shape[1] > 65536 || mean.shape[2] > 65536)
    fail(where, "array 'mean' has shape " + shape_text(mean.shape) + ": layers and heads must be >= 1");
  s.layers = static_cast<int>(mean.shape[1]);
  s.heads = static_cast<int>(mean.shape[2]);
  const std::vector<int64_t> maps_shape{static_cast<int64_t>(s.steps.size()), s.layers, s.heads, R, R};
  expect_shape("mean", mean.shape, maps_shape);
  expect_shape("example", example.shape, maps_shape);
  s.mean = mean.floats;
  s.example = example.floats;
  const NpzArray& roles = ints("roles");
  expect_shape("roles", roles.shape, {s.seq_len});
  for (const int64_t r : roles.integers) {
    if (r < 0 || r > 255) fail(where, "array 'roles' holds " + std::to_string(r) + ", not a byte of role flags");
    s.roles.push_back(static_cast<uint8_t>(r));
  }
  if (arrays.count("tokens")) {
    const NpzArray& tokens = ints("tokens");
    expect_shape("tokens", tokens.shape, {s.seq_len});
    for (const int64_t t : tokens.integers) {
      if (t < 0 || t > INT32_MAX) fail(where, "array 'tokens' holds " + std::to_string(t) + ", not a token id");
      s.tokens.push_back(static_cast<int32_t>(t));
    }
  }
  if (arrays.count("token_labels")) {
    const NpzArray& labels = array("token_labels");
    if (!labels.is_strings()) fail(where, "array 'token_labels' has dtype " + labels.dtype + ", expected byte strings");
    if (s.tokens.empty()) fail(where, "has 'token_labels' but no 'tokens'");
    expect_shape("token_labels", labels.shape, {s.seq_len});
    s.token_labels = labels.strings;
  }
  return s;
}

AttentionSnapshots read_attention_snapshots(const std::filesystem::path& path) {
  try {
    return decode_attention_snapshots(read_npz(path), path.string());
  } catch (const NpzError& e) {
    fail(path.string(), e.what());
  }
}

}  // namespace sinklab
