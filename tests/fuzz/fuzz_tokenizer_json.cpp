// tokenizer.json reader (sinklab.tokenizer, tokenizers/tokenizer_json.cpp): arbitrary bytes as the
// file, then a fixed text with every kind of character encoded with and without special tokens and
// decoded back. The only acceptable failure is a TokenizerError (a bad file, or an id it cannot decode).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.h"
#include "tokenizers/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  static constexpr std::string_view kText =
      "In the beginning, DON'T  \t\r\n 12345 caf\xC3\xA9 e\xCC\x81 \xE6\xBC\xA2\xE5\xAD\x97 "
      "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD "
      "\xD8\xB4\xD9\x84 <s></s><|endoftext|>ab abc \xFF\xC3( \xE2\x96\x81x";
  sinklab::fuzz::expect_only<sinklab::TokenizerError>([&] {
    const sinklab::Tokenizer tok = sinklab::Tokenizer::from_json(bytes, {}, "fuzz/tokenizer.json");
    for (const bool special : {true, false}) {
      const auto ids = tok.encode(kText, special);
      tok.decode(ids, false);
      tok.decode(ids, true);
    }
    tok.vocab_size();
    tok.description();
  });
  return 0;
}
