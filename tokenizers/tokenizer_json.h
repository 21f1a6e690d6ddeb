#pragma once
// The one reader of Hugging Face's tokenizer.json (and of tokenizer_config.json's special-token
// keys). Every component is checked as it is read; anything missing, malformed or of a type this
// library does not implement throws TokenizerError naming the file and the JSON path
// ("tokenizer.json: pre_tokenizer.pretokenizers[0].type: ...").
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizers/added_tokens.h"
#include "tokenizers/bpe_model.h"
#include "tokenizers/decoders.h"
#include "tokenizers/normalizers.h"
#include "tokenizers/post_processor.h"
#include "tokenizers/pre_tokenizers.h"

namespace sinklab::tok {

struct TokenizerParts {
  std::unique_ptr<Normalizer> normalizer;      // null: none
  std::unique_ptr<PreTokenizer> pre_tokenizer;  // null: the whole text is one word
  std::unique_ptr<BpeModel> model;
  std::unique_ptr<Decoder> decoder;  // null: tokens joined by spaces, as HF does
  PostProcessor post_processor;
  std::vector<AddedToken> added_tokens;
  std::optional<int32_t> bos_id, eos_id;
  std::string description;
};

// `json` is the text of a tokenizer.json called `label` in messages; `config` the text of its
// tokenizer_config.json (empty when there is none) called `config_label`.
TokenizerParts read_tokenizer_json(std::string_view json, const std::string& label, std::string_view config,
                                   const std::string& config_label);

}  // namespace sinklab::tok
