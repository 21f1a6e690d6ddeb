// .npy reader (`sinklab report` draws heatmaps from attention/*.npy): arbitrary bytes as one map.
// The only acceptable failure is an NpyError naming the file (the heatmap code skips that figure).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "run_files/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = sinklab::fuzz::temp_dir() / "map.npy";
  sinklab::fuzz::write_file(path, data, size);
  sinklab::fuzz::expect_only<sinklab::NpyError>([&] { sinklab::read_npy(path); });
  return 0;
}
