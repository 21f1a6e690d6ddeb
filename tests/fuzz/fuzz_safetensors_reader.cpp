// The streaming safetensors reader GPT-2 weights go through (models/gpt2_loader.h: a user's
// model.safetensors, F32/F16/BF16 read one tensor at a time): arbitrary bytes as the file, then every
// tensor it lists read. The only acceptable failures are a SafetensorsError or FileReadError naming the
// file.
#include <cstddef>
#include <cstdint>
#include <exception>

#include "core/io/file_read.h"
#include "fuzz_support.h"
#include "run_files/safetensors_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path path = sinklab::fuzz::temp_dir() / "model.safetensors";
  sinklab::fuzz::write_file(path, data, size);
  try {
    const sinklab::SafetensorsReader reader(path);
    for (const sinklab::SafetensorsEntry& e : reader.entries()) reader.read(e.name);
  } catch (const sinklab::SafetensorsError&) {
  } catch (const sinklab::FileReadError&) {
  } catch (const std::exception& e) {
    sinklab::fuzz::unexpected_exception(e);
  }
  return 0;
}
