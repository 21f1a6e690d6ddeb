#pragma once
// The decoders of tokenizer.json, with HF tokenizers' (Rust) semantics: ByteLevel, Metaspace, and the
// SentencePiece chain Sequence[Replace, ByteFallback, Fuse, Strip]. A decoder maps a list of token
// strings to a list of strings that the tokenizer concatenates.
#include <memory>
#include <string>
#include <vector>

#include "tokenizers/pre_tokenizers.h"
#include "tokenizers/regex.h"

namespace sinklab::tok {

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual std::vector<std::string> decode_chain(std::vector<std::string> tokens) const = 0;
};

// The bytes the tokens spell; a token with a character outside the byte table is taken as its own
// UTF-8 (added tokens), and the bytes are then read as UTF-8 with U+FFFD for invalid parts.
std::unique_ptr<Decoder> make_byte_level_decoder();
// Spaces for the replacement character; on the first token the replacements are dropped instead
// unless the scheme is "never".
std::unique_ptr<Decoder> make_metaspace_decoder(std::string replacement, PrependScheme scheme);
std::unique_ptr<Decoder> make_replace_decoder(std::string literal, std::unique_ptr<Regex> regex, std::string content);
// Runs of <0xXX> tokens become the text they spell; a run that is not valid UTF-8 becomes one U+FFFD
// per byte token (HF's rule).
std::unique_ptr<Decoder> make_byte_fallback_decoder();
std::unique_ptr<Decoder> make_fuse_decoder();
// Removes up to `start` leading and `stop` trailing `content` characters from each token.
std::unique_ptr<Decoder> make_strip_decoder(char32_t content, size_t start, size_t stop);
std::unique_ptr<Decoder> make_decoder_sequence(std::vector<std::unique_ptr<Decoder>> steps);

}  // namespace sinklab::tok
