// safetensors reader (model.init_from reads what a user gives it): arbitrary bytes as one file.
// The only acceptable failure is a SafetensorsError naming the file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.h"
#include "run_files/safetensors_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  sinklab::fuzz::expect_only<sinklab::SafetensorsError>(
      [&] { sinklab::decode_safetensors(bytes, "fuzz.safetensors"); });
  return 0;
}
