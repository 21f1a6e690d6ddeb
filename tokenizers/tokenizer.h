#pragma once
// Tokenizers read from a Hugging Face tokenizer.json: byte-level BPE (GPT-2, GPT-NeoX/Pythia,
// Llama-3, Qwen2/3, OPT) and SentencePiece-style BPE with byte fallback (Llama-2, Mistral,
// TinyLlama), with the file's normalizer, pre-tokenizer, added/special tokens, post-processor and
// decoder. Ids are those of HF's tokenizers library on the same files (docs/tokenizers.md).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizers/tokenizer_error.h"

namespace sinklab {

class Tokenizer {
 public:
  // `path`: a model folder (reads tokenizer.json, and tokenizer_config.json if present) or a
  // tokenizer.json file (with the tokenizer_config.json beside it, if present).
  static Tokenizer from_path(const std::filesystem::path& path);
  // The same from the files' text; `label` names tokenizer.json in messages. `config_json` empty:
  // no tokenizer_config.json.
  static Tokenizer from_json(std::string_view tokenizer_json, std::string_view config_json = {},
                             const std::string& label = "tokenizer.json");

  // Invalid UTF-8 in `text` is read as U+FFFD per maximal invalid subpart (as TextDecoder does).
  std::vector<int32_t> encode(std::string_view text, bool add_special_tokens = true) const;
  // Throws TokenizerError for an id that names no token.
  std::string decode(std::span<const int32_t> ids, bool skip_special_tokens = false) const;
  int32_t vocab_size() const;  // largest id + 1, added tokens included
  std::optional<int32_t> token_to_id(std::string_view token) const;
  std::string id_to_token(int32_t id) const;  // throws TokenizerError for an id out of range
  std::optional<int32_t> bos_id() const;
  std::optional<int32_t> eos_id() const;
  std::string description() const;  // e.g. "byte-level BPE, 50257 tokens"
  // The tokenizer.json it was read from (the label given to from_json); errors start with it.
  const std::string& source() const;

 private:
  struct Impl;
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace sinklab
