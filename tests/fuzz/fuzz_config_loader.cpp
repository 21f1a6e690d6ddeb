// Config loader: arbitrary bytes as the YAML text of a config file (what `sinklab train CONFIG` reads).
// The only acceptable failure is a ConfigError naming the file, line and key.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config_loading/config_loader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The vocabulary of `sinklab train`, so check_consistency's name checks run.
  static const sinklab::ConfigVocabulary vocab{sinklab::fuzz::kNormalizers, sinklab::fuzz::kTasks};
  const std::string text(reinterpret_cast<const char*>(data), size);
  sinklab::fuzz::expect_only<sinklab::ConfigError>(
      [&] { sinklab::parse_run_config(text, "fuzz.yaml", {}, vocab); });
  return 0;
}
