// The .npz reader and the snapshot file's checks (the trainer's resume and `sinklab report` read
// attention_snapshots.npz through them): arbitrary bytes as a snapshot file. The only acceptable
// failures are an NpzError from the archive and an AttentionSnapshotFileError from the checks (the
// explorer page then shows that message). Entries are capped at 64 MiB so an inflating archive stays
// inside the fuzzer's memory limit.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "fuzz_support.h"
#include "run_files/attention_snapshot_file.h"
#include "run_files/npz_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::optional<sinklab::NpzArrays> arrays;
  sinklab::fuzz::expect_only<sinklab::NpzError>(
      [&] { arrays = sinklab::decode_npz(bytes, "attention_snapshots.npz", uint64_t{64} << 20); });
  if (!arrays) return 0;
  sinklab::fuzz::expect_only<sinklab::AttentionSnapshotFileError>(
      [&] { sinklab::decode_attention_snapshots(*arrays, "attention_snapshots.npz"); });
  return 0;
}
