#include "run_files/attention_snapshot_file.h"

#include <algorithm>
#include <map>
#include <string>

#include "core/io/file_write.h"
#include "run_files/npy.h"
#include "run_files/npz_file.h"

namespace sinklab {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw AttentionSnapshotFileError("attention snapshots " + where + ": " + why);
}

template <typename T>
std::string npy(const char* descr, const std::vector<T>& values, const std::vector<int64_t>& shape, const std::string& where) {
  return encode_npy_typed(descr, values.data(), sizeof(T), values.size(), shape, where);
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

std::string encode_attention_snapshots(const AttentionSnapshots& s, const std::string& where) {
  const int64_t S = static_cast<int64_t>(s.steps.size()), R = static_cast<int64_t>(s.side());
  const std::vector<int64_t> maps_shape{S, s.layers, s.heads, R, R};
  if (s.roles.size() != static_cast<size_t>(s.seq_len) || (!s.tokens.empty() && s.tokens.size() != s.roles.size()))
    fail(where, "roles and tokens must hold seq_len (" + std::to_string(s.seq_len) + ") values");
  NpzTextEntries entries;
  try {
    entries.emplace_back("steps.npy", npy("<i8", s.steps, {S}, where + " steps"));
    entries.emplace_back("mean.npy", npy("<f4", s.mean, maps_shape, where + " mean"));
    entries.emplace_back("example.npy", npy("<f4", s.example, maps_shape, where + " example"));
    entries.emplace_back("rows.npy", npy("<i4", s.positions, {R}, where + " rows"));
    entries.emplace_back("cols.npy", npy("<i4", s.positions, {R}, where + " cols"));
    entries.emplace_back("roles.npy", npy("|u1", s.roles, {s.seq_len}, where + " roles"));
    if (!s.tokens.empty()) entries.emplace_back("tokens.npy", npy("<i4", s.tokens, {s.seq_len}, where + " tokens"));
    const std::vector<int64_t> seq_len{s.seq_len};
    entries.emplace_back("seq_len.npy", npy("<i8", seq_len, {}, where + " seq_len"));
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

AttentionSnapshots read_attention_snapshots(const std::filesystem::path& path) {
  const std::string where = path.string();
  std::map<std::string, std::string> entries;
  try {
    for (auto& [name, bytes] : read_npz_entries(path)) entries[name] = std::move(bytes);
  } catch (const NpzError& e) {
    fail(where, e.what());
  }
  const auto entry = [&](const std::string& name) -> const std::string& {
    const auto it = entries.find(name + ".npy");
    if (it == entries.end()) fail(where, "has no array '" + name + "'");
    return it->second;
  };
  const auto ints = [&](const std::string& name) {
    try {
      return decode_npy_integers(entry(name), where + " array " + name);
    } catch (const NpyError& e) {
      fail(where, e.what());
    }
  };
  const auto floats = [&](const std::string& name) {
    try {
      return decode_npy(entry(name), where + " array " + name);
    } catch (const NpyError& e) {
      fail(where, e.what());
    }
  };
  const auto expect_shape = [&](const std::string& name, const std::vector<int64_t>& got, const std::vector<int64_t>& want) {
    if (got != want) fail(where, "array '" + name + "' has shape " + shape_text(got) + ", expected " + shape_text(want));
  };

  AttentionSnapshots s;
  const NpyIntArray seq_len = ints("seq_len");
  expect_shape("seq_len", seq_len.shape, {});
  if (seq_len.data[0] < 1 || seq_len.data[0] > (int64_t{1} << 30)) fail(where, "seq_len " + std::to_string(seq_len.data[0]) + " is out of range");
  s.seq_len = static_cast<int>(seq_len.data[0]);
  const std::vector<int32_t> positions = snapshot_positions(s.seq_len);
  const int64_t R = static_cast<int64_t>(positions.size());
  for (const char* axis : {"rows", "cols"}) {
    const NpyIntArray a = ints(axis);
    expect_shape(axis, a.shape, {R});
    if (!std::equal(a.data.begin(), a.data.end(), positions.begin()))
      fail(where, std::string("array '") + axis + "' is not the documented positions for seq_len " + std::to_string(s.seq_len));
  }
  s.positions = positions;
  const NpyIntArray steps = ints("steps");
  if (steps.shape.size() != 1) fail(where, "array 'steps' has shape " + shape_text(steps.shape) + ", expected [S]");
  s.steps = steps.data;
  if (!std::is_sorted(s.steps.begin(), s.steps.end()) || std::adjacent_find(s.steps.begin(), s.steps.end()) != s.steps.end())
    fail(where, "array 'steps' is not strictly increasing");
  NpyArray mean = floats("mean"), example = floats("example");
  if (mean.shape.size() != 5) fail(where, "array 'mean' has shape " + shape_text(mean.shape) + ", expected [S, layers, heads, R, C]");
  const int64_t S = static_cast<int64_t>(s.steps.size());
  if (mean.shape[1] < 1 || mean.shape[2] < 1 || mean.shape[1] > 65536 || mean.shape[2] > 65536)
    fail(where, "array 'mean' has shape " + shape_text(mean.shape) + ": layers and heads must be >= 1");
  s.layers = static_cast<int>(mean.shape[1]);
  s.heads = static_cast<int>(mean.shape[2]);
  const std::vector<int64_t> maps_shape{S, s.layers, s.heads, R, R};
  expect_shape("mean", mean.shape, maps_shape);
  expect_shape("example", example.shape, maps_shape);
  s.mean = std::move(mean.data);
  s.example = std::move(example.data);
  const NpyIntArray roles = ints("roles");
  expect_shape("roles", roles.shape, {s.seq_len});
  for (int64_t r : roles.data) {
    if (r < 0 || r > 255) fail(where, "array 'roles' holds " + std::to_string(r) + ", not a byte of role flags");
    s.roles.push_back(static_cast<uint8_t>(r));
  }
  if (entries.count("tokens.npy")) {
    const NpyIntArray tokens = ints("tokens");
    expect_shape("tokens", tokens.shape, {s.seq_len});
    for (int64_t t : tokens.data) s.tokens.push_back(static_cast<int32_t>(t));
  }
  return s;
}

}  // namespace sinklab
