// Checkpoint reader (`sinklab train --resume`, load_model): arbitrary bytes as checkpoint.bin in
// format 3 or 4 (run_files/checkpoint_file.h). A random file rarely passes the checksums (table: FNV-1a; data:
// FNV-1a in format 3, XXH3-64 otherwise), so each input is loaded twice: as written (header checks), then with
// the data size and both checksums patched to match, which lets the fuzzer reach the table parser, the name
// and shape check against the model, the data and the training-state decoder (run_files/checkpoint.cpp). The
// expected hashes are the file's own (a mismatch is a trivial branch). The parameter store follows the
// file's own table when that reads as a small one (<= 64 parameters of <= 4096 floats each), for the same
// reason; otherwise it holds one parameter. Every load is done both as a resume and as a weights-only load.
// The only acceptable failure is a CheckpointError naming the file.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <xxhash.h>

#include "core/parameter_store.h"
#include "fuzz_support.h"
#include "run_files/checkpoint_file.h"
#include "run_files/checkpoint.h"

namespace {

// Header: magic, version, model hash, config hash, table bytes, data bytes, table sum, data sum.
constexpr size_t kHeader = 60;
constexpr size_t kVersionAt = 8, kTableBytesAt = 28, kDataBytesAt = 36, kTableSumAt = 44, kDataSumAt = 52;

uint64_t fnv1a(uint64_t h, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}
constexpr uint64_t kBasis = 1469598103934665603ULL;

template <typename T>
T read_at(const std::vector<uint8_t>& bytes, size_t offset) {
  T v{};
  if (offset <= bytes.size() && sizeof(T) <= bytes.size() - offset) std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

// Parameters as the file's table declares them, if it reads as a small table; else false.
bool declare_from_table(const std::vector<uint8_t>& bytes, sinklab::ParameterStore& store) {
  size_t at = kHeader;
  const auto count = read_at<uint32_t>(bytes, at);
  at += 4;
  if (count == 0 || count > 64) return false;
  for (uint32_t i = 0; i < count; ++i) {
    const auto name_bytes = read_at<uint32_t>(bytes, at);
    at += 4;
    if (name_bytes == 0 || name_bytes > 256 || at + name_bytes > bytes.size()) return false;
    const std::string name(reinterpret_cast<const char*>(bytes.data() + at), name_bytes);
    at += name_bytes;
    const auto rank = read_at<uint32_t>(bytes, at);
    at += 4;
    if (rank > static_cast<uint32_t>(sinklab::kMaxRank) || at + 8 * rank > bytes.size()) return false;
    sinklab::Shape shape;
    int64_t numel = 1;
    for (uint32_t d = 0; d < rank; ++d) {
      const auto dim = read_at<int64_t>(bytes, at);
      at += 8;
      if (dim < 0 || dim > 4096 || (numel *= dim) > 4096) return false;
      shape.dims[d] = dim;
    }
    shape.rank = static_cast<int>(rank);
    if (!store.contains(name)) store.declare(name, shape);
  }
  return true;
}

void load(const std::vector<uint8_t>& bytes) {
  const auto path = sinklab::fuzz::temp_dir() / "checkpoint.bin";
  sinklab::fuzz::write_file(path, bytes.data(), bytes.size());
  sinklab::ParameterStore store;
  if (!declare_from_table(bytes, store)) {
    store = sinklab::ParameterStore();
    store.declare("w", sinklab::Shape{16});
  }
  store.finalize();
  const sinklab::CheckpointHashes own{read_at<uint64_t>(bytes, 12), read_at<uint64_t>(bytes, 20)};
  sinklab::fuzz::expect_only<sinklab::CheckpointError>([&] { sinklab::load_checkpoint(path, own, store); });
  sinklab::fuzz::expect_only<sinklab::CheckpointError>(
      [&] { sinklab::read_checkpoint_file(path, own, sinklab::CheckpointUse::weights, store); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  load(bytes);
  if (size < kHeader) return 0;
  uint64_t table = read_at<uint64_t>(bytes, kTableBytesAt);
  if (table > size - kHeader) {
    table = size - kHeader;
    std::memcpy(bytes.data() + kTableBytesAt, &table, sizeof table);
  }
  const uint64_t rest = size - kHeader - table;
  std::memcpy(bytes.data() + kDataBytesAt, &rest, sizeof rest);
  const uint64_t table_sum = fnv1a(fnv1a(kBasis, bytes.data(), kTableSumAt), bytes.data() + kHeader, table);
  const uint8_t* data_part = bytes.data() + kHeader + table;
  const bool format3 = read_at<uint32_t>(bytes, kVersionAt) == 3;
  const uint64_t data_sum = format3 ? fnv1a(kBasis, data_part, rest) : XXH3_64bits(data_part, rest);
  std::memcpy(bytes.data() + kTableSumAt, &table_sum, sizeof table_sum);
  std::memcpy(bytes.data() + kDataSumAt, &data_sum, sizeof data_sum);
  load(bytes);
  return 0;
}
