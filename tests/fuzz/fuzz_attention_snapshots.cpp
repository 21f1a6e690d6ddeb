// .npz reader and the explorer's snapshot checks (`sinklab report` reads attention_snapshots.npz):
// arbitrary bytes as a snapshot file. The only acceptable failure is an NpzError naming the file (the
// explorer page then shows that message). Entries are capped at 64 MiB so an inflating archive stays
// inside the fuzzer's memory limit.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.h"
#include "report/explorer/attention_snapshots.h"
#include "run_files/npz_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  sinklab::fuzz::expect_only<sinklab::NpzError>([&] {
    const sinklab::NpzArrays arrays = sinklab::decode_npz(bytes, "attention_snapshots.npz", uint64_t{64} << 20);
    sinklab::attention_snapshots_from(arrays, "attention_snapshots.npz");
  });
  return 0;
}
