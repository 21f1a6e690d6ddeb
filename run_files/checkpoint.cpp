#include "run_files/checkpoint.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sinklab {
namespace {

// 2 x i64, RNG (4 x u64 + u8 + f64), u64, u8, f64; then the snapshot record: i64, u32, u64 [K]
constexpr size_t kStateBytesBeforeSnapshots = 16 + 41 + 8 + 1 + 8;
constexpr size_t kSnapshotRecordBytes = 8 + 4;

template <typename T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

std::string encode(const TrainingState& s) {
  std::string out;
  out.reserve(kStateBytesBeforeSnapshots + kSnapshotRecordBytes + 8 * s.snapshots.hashes.size());
  put(out, s.step);
  put(out, s.optimizer_steps);
  for (uint64_t w : s.rng.words) put(out, w);
  put(out, static_cast<uint8_t>(s.rng.has_cached_normal));
  put(out, s.rng.cached_normal);
  put(out, s.metrics_lines);
  put(out, static_cast<uint8_t>(s.stop));
  put(out, s.last_loss);
  if (!s.snapshots.recorded || s.snapshots.hashes.size() > kMaxSnapshotHashes)
    throw std::logic_error("checkpoint: a training state without a valid snapshot record");
  put(out, s.snapshots.interval);
  put(out, static_cast<uint32_t>(s.snapshots.hashes.size()));
  for (const uint64_t h : s.snapshots.hashes) put(out, h);
  return out;
}

TrainingState decode(std::string_view bytes, const std::string& file) {
  const auto fail = [&](const std::string& problem) {
    return CheckpointError("checkpoint " + file + ": training state: " + problem);
  };
  const auto wrong_size = [&] {
    return fail(std::to_string(bytes.size()) + " bytes, a training state has " +
                std::to_string(kStateBytesBeforeSnapshots) + " (before snapshot records) or " +
                std::to_string(kStateBytesBeforeSnapshots + kSnapshotRecordBytes) +
                " + 8 per snapshot hash");
  };
  if (bytes.size() != kStateBytesBeforeSnapshots && bytes.size() < kStateBytesBeforeSnapshots + kSnapshotRecordBytes)
    throw wrong_size();
  size_t pos = 0;
  const auto get = [&]<typename T>(T& v) {
    std::memcpy(&v, bytes.data() + pos, sizeof(T));
    pos += sizeof(T);
  };
  TrainingState s;
  uint8_t has_cached = 0, stop = 0;
  get(s.step);
  get(s.optimizer_steps);
  for (uint64_t& w : s.rng.words) get(w);
  get(has_cached);
  get(s.rng.cached_normal);
  get(s.metrics_lines);
  get(stop);
  get(s.last_loss);
  s.rng.has_cached_normal = has_cached != 0;
  // The checksum only says the bytes are the ones written; a forged file can carry a valid one.
  if (s.step < 0) throw fail("step " + std::to_string(s.step) + " is negative");
  if (s.optimizer_steps < 0) throw fail("optimizer step " + std::to_string(s.optimizer_steps) + " is negative");
  if (stop > static_cast<uint8_t>(StopRule::loss)) throw fail("unknown stop rule code " + std::to_string(stop));
  s.stop = static_cast<StopRule>(stop);
  s.snapshots.recorded = bytes.size() > kStateBytesBeforeSnapshots;
  if (!s.snapshots.recorded) return s;
  uint32_t count = 0;
  get(s.snapshots.interval);
  get(count);
  if (s.snapshots.interval < 0)
    throw fail("snapshot interval " + std::to_string(s.snapshots.interval) + " is negative");
  if (count > kMaxSnapshotHashes || bytes.size() - pos != 8 * static_cast<size_t>(count)) throw wrong_size();
  s.snapshots.hashes.resize(count);
  for (uint64_t& h : s.snapshots.hashes) get(h);
  return s;
}

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const CheckpointHashes& hashes, ParameterStore& params,
                     const TrainingState& state) {
  write_checkpoint_file(path, hashes, params, encode(state));
}

TrainingState load_checkpoint(const std::filesystem::path& path, const CheckpointHashes& hashes,
                              ParameterStore& params) {
  return decode(read_checkpoint_file(path, hashes, CheckpointUse::resume, params), path.string());
}

TrainingState read_training_state(const std::filesystem::path& path) {
  return decode(read_checkpoint_training_state(path), path.string());
}

}  // namespace sinklab
