// A Hugging Face config.json (models/open_models/hf_config.h) as the open-model loader reads it:
// arbitrary bytes as the file, then every typed read the families make (sizes, numbers, booleans,
// strings, rope_scaling) and the refusal of unread keys. The only acceptable failure is an
// OpenModelError naming the file.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "fuzz_support.h"
#include "models/open_models/config_sizes.h"
#include "models/open_models/hf_config.h"
#include "models/open_models/rope_scaling_json.h"

namespace {

void read_like_a_family(const sinklab::HfConfig& c) {
  (void)c.model_type();
  const int hidden = sinklab::config_size(c, "hidden_size", 64, 1 << 16);
  const int heads = sinklab::config_size(c, "num_attention_heads", 4, 1024);
  (void)sinklab::config_head_dim(c, hidden, heads, "hidden_size", "num_attention_heads");
  (void)sinklab::config_size(c, "num_key_value_heads", heads, 1024);
  (void)c.number_or("rms_norm_eps", 1e-6);
  (void)c.number_or("rope_theta", 10000);
  (void)c.boolean_or("tie_word_embeddings", false);
  (void)c.string_or("hidden_act", "silu");
  (void)c.integer_or("sliding_window", 0);
  sinklab::RopeConfig rope;
  sinklab::read_rope_scaling(c, rope);
  c.ignore(sinklab::hf_config_bookkeeping_keys());
  c.refuse_unread("fuzzed");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const sinklab::HfConfig config(sinklab::fuzz::temp_dir() / "config.json", text);
    read_like_a_family(config);
  } catch (const sinklab::OpenModelError&) {
  } catch (const std::exception& e) {
    sinklab::fuzz::unexpected_exception(e);
  }
  return 0;
}
