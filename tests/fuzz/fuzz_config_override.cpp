// `sinklab train CONFIG --set key=value ...`: every line of the input is one --set argument, applied
// to configs/paper/1x1_softmax.yaml. The only acceptable failure is a ConfigError naming the override.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config_loading/config_loader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const sinklab::ConfigVocabulary vocab{sinklab::fuzz::kNormalizers, sinklab::fuzz::kTasks};
  // A real, valid base so that overrides reach the walk and the consistency checks.
  static const std::string base =
      sinklab::fuzz::read_text(sinklab::fuzz::source_dir() / "configs/paper/1x1_softmax.yaml");
  std::vector<std::string> overrides;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    overrides.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  sinklab::fuzz::expect_only<sinklab::ConfigError>(
      [&] { sinklab::parse_run_config(base, "1x1_softmax.yaml", overrides, vocab); });
  return 0;
}
