#include "run_files/attention_snapshot_file.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <map>
#include <string>

#include "core/fnv1a.h"
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

template <typename T>
uint64_t hash_bytes(uint64_t h, const T* data, size_t count) {
  return fnv1a(h, std::string_view(reinterpret_cast<const char*>(data), count * sizeof(T)));
}

uint64_t frame_hash(const AttentionSnapshots& s) {
  const int64_t dims[] = {s.layers, s.heads, s.seq_len, static_cast<int64_t>(s.tokens.size()),
                          static_cast<int64_t>(s.token_labels.size())};
  uint64_t h = hash_bytes(kFnv1aBasis, dims, std::size(dims));
  h = hash_bytes(h, s.roles.data(), s.roles.size());
  h = hash_bytes(h, s.tokens.data(), s.tokens.size());
  for (const std::string& label : s.token_labels) {
    const uint64_t bytes = label.size();
    h = fnv1a(hash_bytes(h, &bytes, 1), label);
  }
  return h;
}

// Each snapshot's own hash (step, mean, example), for the snapshots of steps below steps_done.
std::vector<uint64_t> snapshot_hashes(const AttentionSnapshots& s, int64_t steps_done) {
  const size_t block = s.block();
  if (s.mean.size() != s.steps.size() * block || s.example.size() != s.steps.size() * block)
    throw std::logic_error("attention snapshots: maps do not hold one block per step");
  std::vector<uint64_t> out;
  for (size_t i = 0; i < s.steps.size() && s.steps[i] < steps_done; ++i) {
    uint64_t h = hash_bytes(kFnv1aBasis, &s.steps[i], 1);
    h = hash_bytes(h, s.mean.data() + i * block, block);
    out.push_back(hash_bytes(h, s.example.data() + i * block, block));
  }
  return out;
}

uint64_t thinned_hash(const AttentionSnapshots& s, uint64_t frame, const std::vector<uint64_t>& each,
                      int64_t interval) {
  if (interval < 1) throw std::logic_error("attention snapshots: an interval must be >= 1");
  uint64_t h = hash_bytes(kFnv1aBasis, &frame, 1);
  for (size_t i = 0; i < each.size(); ++i)
    if (s.steps[i] % interval == 0) h = hash_bytes(h, &each[i], 1);
  return h;
}

}  // namespace

uint64_t attention_snapshots_hash(const AttentionSnapshots& s, int64_t steps_done, int64_t interval) {
  return thinned_hash(s, frame_hash(s), snapshot_hashes(s, steps_done), interval);
}

SnapshotRecord record_attention_snapshots(const AttentionSnapshots& s, int64_t steps_done, int64_t interval) {
  const uint64_t frame = frame_hash(s);
  const std::vector<uint64_t> each = snapshot_hashes(s, steps_done);
  SnapshotRecord record;
  record.interval = interval;
  for (int64_t d = interval; record.hashes.size() < kMaxSnapshotHashes; d *= 2) {
    record.hashes.push_back(thinned_hash(s, frame, each, d));
    if (d >= steps_done || d > INT64_MAX / 2) break;
  }
  return record;
}

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
    if (!s.tokens.empty())
      entries.emplace_back("tokens.npy", encode_npy_vector("<i4", s.tokens, {s.seq_len}, where + " tokens"));
    if (!s.token_labels.empty())
      entries.emplace_back("token_labels.npy", encode_npy_byte_strings(s.token_labels, where + " token_labels"));
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
  const auto expect_shape = [&](const std::string& name, const std::vector<int64_t>& got,
                                const std::vector<int64_t>& want) {
    if (got != want)
      fail(where, "array '" + name + "' has shape " + shape_text(got) + ", expected " + shape_text(want));
  };
  const auto ints = [&](const std::string& name) -> const NpzArray& {
    const NpzArray& a = array(name);
    if (a.is_float() || a.is_strings())
      fail(where, "array '" + name + "' has dtype " + a.dtype + ", expected integers");
    return a;
  };
  const auto floats = [&](const std::string& name) -> const NpzArray& {
    const NpzArray& a = array(name);
    if (!a.is_float()) fail(where, "array '" + name + "' has dtype " + a.dtype + ", expected floats");
    return a;
  };

  AttentionSnapshots s;
  const NpzArray& seq_len = ints("seq_len");
  if (seq_len.element_count() != 1)
    fail(where, "array 'seq_len' has shape " + shape_text(seq_len.shape) + ", expected one number");
  if (seq_len.integers[0] < 1 || seq_len.integers[0] > (int64_t{1} << 24))
    fail(where, "seq_len " + std::to_string(seq_len.integers[0]) + " is out of range");
  s.seq_len = static_cast<int>(seq_len.integers[0]);
  s.positions = snapshot_positions(s.seq_len);
  const int64_t R = static_cast<int64_t>(s.positions.size());
  for (const char* axis : {"rows", "cols"}) {
    const NpzArray& a = ints(axis);
    expect_shape(axis, a.shape, {R});
    if (!std::equal(a.integers.begin(), a.integers.end(), s.positions.begin()))
      fail(where, std::string("array '") + axis + "' is not the documented positions for seq_len " +
                      std::to_string(s.seq_len));
  }
  const NpzArray& steps = ints("steps");
  if (steps.shape.size() != 1) fail(where, "array 'steps' has shape " + shape_text(steps.shape) + ", expected [S]");
  s.steps = steps.integers;
  if (s.steps.empty()) fail(where, "array 'steps' is empty: no snapshot was stored");
  if (!std::is_sorted(s.steps.begin(), s.steps.end()) ||
      std::adjacent_find(s.steps.begin(), s.steps.end()) != s.steps.end())
    fail(where, "array 'steps' is not strictly increasing");
  if (s.steps.front() < 0) fail(where, "array 'steps' starts at step " + std::to_string(s.steps.front()));
  const NpzArray& mean = floats("mean");
  const NpzArray& example = floats("example");
  if (mean.shape.size() != 5)
    fail(where, "array 'mean' has shape " + shape_text(mean.shape) + ", expected [S, layers, heads, R, C]");
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

uint64_t snapshot_file_bound(int64_t heads, int64_t steps) {
  const auto positions = static_cast<uint64_t>(kSnapshotFullSide);
  const uint64_t per_snapshot = 2 * static_cast<uint64_t>(std::max<int64_t>(heads, 1)) * positions * positions * 8;
  const uint64_t snapshots = static_cast<uint64_t>(std::max<int64_t>(steps, 0)) + 2;
  constexpr uint64_t kSmallEntries = uint64_t{1} << 24;  // steps, rows, roles, tokens and their labels
  if (per_snapshot > (kMaxNpzBytes - kSmallEntries) / snapshots) return kMaxNpzBytes;
  return per_snapshot * snapshots + kSmallEntries;
}

AttentionSnapshots read_attention_snapshots(const std::filesystem::path& path, uint64_t max_bytes) {
  try {
    return decode_attention_snapshots(read_npz(path, max_bytes), path.string());
  } catch (const NpzError& e) {
    fail(path.string(), e.what());
  }
}

}  // namespace sinklab
