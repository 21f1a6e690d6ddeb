// Run summary reader (`sinklab report RUN`, sweeps and resume read summary.json): arbitrary bytes as
// summary.json. The only acceptable failure is a RunFileError naming the file and the field.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "run_files/run_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = sinklab::fuzz::temp_dir() / "summary.json";
  sinklab::fuzz::write_file(path, data, size);
  sinklab::fuzz::expect_only<sinklab::RunFileError>([&] { sinklab::read_run_summary(path); });
  return 0;
}
