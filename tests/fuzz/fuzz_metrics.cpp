// Metrics reader (`sinklab report` plots loss and BOS mass from metrics.jsonl): arbitrary bytes as
// metrics.jsonl. The only acceptable failure is a RunFileError naming the file, line and field.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "run_files/run_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = sinklab::fuzz::temp_dir() / "metrics.jsonl";
  sinklab::fuzz::write_file(path, data, size);
  sinklab::fuzz::expect_only<sinklab::RunFileError>([&] { sinklab::read_metrics(path); });
  return 0;
}
