// The sharded weights of a Hugging Face folder (models/open_models/hf_weights.h): arbitrary bytes as
// model.safetensors.index.json beside two real shards, then every tensor it maps read. The only
// acceptable failures are OpenModelError, SafetensorsError or FileReadError naming a file.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

#include "core/io/file_read.h"
#include "fuzz_support.h"
#include "models/open_models/hf_config.h"
#include "models/open_models/hf_weights.h"
#include "run_files/safetensors_file.h"

namespace {

// Two small shards with a tensor each, written once.
const std::filesystem::path& folder() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path d = sinklab::fuzz::temp_dir() / "model";
    std::filesystem::create_directories(d);
    sinklab::write_safetensors(d / "model-00001-of-00002.safetensors", {{"a.weight", {2, 2}, {1, 2, 3, 4}}}, {});
    sinklab::write_safetensors(d / "model-00002-of-00002.safetensors", {{"b.weight", {3}, {5, 6, 7}}}, {});
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sinklab::fuzz::write_file(folder() / "model.safetensors.index.json", data, size);
  try {
    const sinklab::HfWeights weights(folder());
    for (const std::string& name : weights.names()) {
      const sinklab::SafetensorsEntry* e = weights.find(name);
      std::vector<float> values(e->shape.empty() ? 1 : 0);
      uint64_t n = 1;
      for (const int64_t d : e->shape) n *= static_cast<uint64_t>(d);
      values.resize(n);
      weights.read_into(name, 0, n, values.data());
    }
  } catch (const sinklab::OpenModelError&) {
  } catch (const sinklab::SafetensorsError&) {
  } catch (const sinklab::FileReadError&) {
  } catch (const std::exception& e) {
    sinklab::fuzz::unexpected_exception(e);
  }
  return 0;
}
