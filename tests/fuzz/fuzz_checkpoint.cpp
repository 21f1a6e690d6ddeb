// Checkpoint reader (`sinklab train --resume`): arbitrary bytes as checkpoint.bin. A random file
// rarely passes the FNV-1a checksum, so each input is loaded twice: as written (header checks), then
// with the payload size and checksum patched to match, which lets the fuzzer reach the payload parser.
// The expected config hash is the file's own (a mismatch is a trivial branch).
// The parameter store's size follows the count in the payload (when small) for the same reason.
// The only acceptable failure is a CheckpointError naming the file.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/parameter_store.h"
#include "fuzz_support.h"
#include "train/checkpoint.h"

namespace {

constexpr size_t kHeader = 8 + 4 + 8 + 8 + 8;  // magic, version, config hash, payload size, checksum
// payload: steps, optimizer steps, rng, metrics lines, stop rule, last loss, then the u64 count
constexpr size_t kCountOffset = kHeader + 8 + 8 + 4 * 8 + 1 + 8 + 8 + 1 + 8;

uint64_t fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

template <typename T>
T read_at(const std::vector<uint8_t>& bytes, size_t offset) {
  T v{};
  if (offset + sizeof(T) <= bytes.size()) std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

// A finalized store of `floats` parameters (at least one; capped so inputs stay cheap).
sinklab::ParameterStore make_store(uint64_t floats) {
  sinklab::ParameterStore store;
  const int64_t n = static_cast<int64_t>(floats >= 1 && floats <= 4096 ? floats : 16);
  store.declare("w", sinklab::Shape{n});
  store.finalize();
  return store;
}

void load(const std::vector<uint8_t>& bytes, uint64_t config_hash) {
  const auto path = sinklab::fuzz::temp_dir() / "checkpoint.bin";
  sinklab::fuzz::write_file(path, bytes.data(), bytes.size());
  sinklab::ParameterStore store = make_store(read_at<uint64_t>(bytes, kCountOffset));
  sinklab::fuzz::expect_only<sinklab::CheckpointError>(
      [&] { sinklab::load_checkpoint(path, config_hash, store); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  const uint64_t file_hash = read_at<uint64_t>(bytes, 8 + 4);
  load(bytes, file_hash);
  if (size < kHeader) return 0;
  const uint64_t payload = size - kHeader;
  const uint64_t sum = fnv1a(bytes.data() + kHeader, payload);
  std::memcpy(bytes.data() + kHeader - 16, &payload, sizeof payload);
  std::memcpy(bytes.data() + kHeader - 8, &sum, sizeof sum);
  load(bytes, file_hash);
  return 0;
}
