#include "models/open_models/hf_config.h"

#include "core/io/file_read.h"

namespace sinklab {
namespace {

nlohmann::json parse(const std::filesystem::path& path, const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw OpenModelError("model config " + path.string() + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw OpenModelError("model config " + path.string() + ": not a JSON object");
  return j;
}

std::string read_config(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw OpenModelError("model config " + path.string() + ": no such file (a Hugging Face model folder has a "
                         "config.json beside its weights)");
  try {
    return read_regular_file(path, 4 << 20, "model config");
  } catch (const FileReadError& e) {
    throw OpenModelError(e.what());
  }
}

}  // namespace

HfConfig::HfConfig(const std::filesystem::path& path) : HfConfig(path, read_config(path)) {}

HfConfig::HfConfig(const std::filesystem::path& path, const std::string& text)
    : path_(path), json_(parse(path, text)) {}

bool HfConfig::has(const std::string& key) const {
  const auto it = json_.find(key);
  return it != json_.end() && !it->is_null();
}

std::string HfConfig::model_type() const {
  read_.insert("model_type");
  const auto it = json_.find("model_type");
  return it != json_.end() && it->is_string() ? it->get<std::string>() : "";
}

void HfConfig::fail(const std::string& key, const std::string& why) const {
  throw OpenModelError("model config " + path_.string() + ": \"" + key + "\": " + why);
}

int64_t HfConfig::integer(const std::string& key) const {
  read_.insert(key);
  if (!has(key)) fail(key, "missing; the loader needs it");
  const nlohmann::json& v = json_.at(key);
  if (!v.is_number_integer()) fail(key, v.dump() + " is not an integer");
  return v.get<int64_t>();
}

int64_t HfConfig::integer_or(const std::string& key, int64_t fallback) const {
  if (!has(key)) {
    read_.insert(key);
    return fallback;
  }
  return integer(key);
}

double HfConfig::number_or(const std::string& key, double fallback) const {
  read_.insert(key);
  if (!has(key)) return fallback;
  const nlohmann::json& v = json_.at(key);
  if (!v.is_number()) fail(key, v.dump() + " is not a number");
  return v.get<double>();
}

bool HfConfig::boolean_or(const std::string& key, bool fallback) const {
  read_.insert(key);
  if (!has(key)) return fallback;
  const nlohmann::json& v = json_.at(key);
  if (!v.is_boolean()) fail(key, v.dump() + " is not true or false");
  return v.get<bool>();
}

std::string HfConfig::string_or(const std::string& key, const std::string& fallback) const {
  read_.insert(key);
  if (!has(key)) return fallback;
  const nlohmann::json& v = json_.at(key);
  if (!v.is_string()) fail(key, v.dump() + " is not a string");
  return v.get<std::string>();
}

const nlohmann::json& HfConfig::raw(const std::string& key) const {
  static const nlohmann::json null;
  read_.insert(key);
  const auto it = json_.find(key);
  return it == json_.end() ? null : *it;
}

void HfConfig::ignore(const std::vector<std::string>& keys) const { read_.insert(keys.begin(), keys.end()); }

void HfConfig::refuse_unread(const std::string& family) const {
  for (const auto& [key, value] : json_.items())
    if (!read_.count(key) && !value.is_null())
      fail(key, "this " + family + " loader does not know the key, so it cannot tell whether it changes what the "
                "model computes; refused rather than ignored (docs/open-models.md lists the keys each family reads)");
}

const std::vector<std::string>& hf_config_bookkeeping_keys() {
  static const std::vector<std::string> keys = {
      "architectures", "transformers_version", "torch_dtype", "dtype", "use_cache", "initializer_range", "init_std",
      "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id", "sep_token_id", "decoder_start_token_id",
      "_name_or_path", "tokenizer_class", "attention_dropout", "hidden_dropout", "dropout", "activation_dropout",
      "attn_pdrop", "resid_pdrop", "embd_pdrop", "classifier_dropout", "layerdrop", "hidden_dropout_prob",
      "attention_probs_dropout_prob", "return_dict", "output_attentions", "output_hidden_states", "is_decoder",
      "prefix", "id2label", "label2id", "problem_type", "finetuning_task", "task_specific_params",
      "keys_to_ignore_at_inference", "_attn_implementation_autoset", "use_return_dict", "gradient_checkpointing",
      "max_length", "num_beams", "do_sample", "temperature", "top_k", "top_p", "repetition_penalty",
      "model_name", "_commit_hash", "transformers.js_config"};
  return keys;
}

}  // namespace sinklab
