#pragma once
// The pre-tokenizers of tokenizer.json that the supported families use: ByteLevel (GPT-2's regex and
// the byte spelling), Split (a file's own regex, every HF split behaviour), Metaspace (both its old
// add_prefix_space form and the newer prepend_scheme form) and Sequence. Each turns the pieces of a
// text into smaller pieces ("words") that the BPE model encodes one by one.
#include <memory>
#include <string>
#include <vector>

#include "tokenizers/regex.h"

namespace sinklab::tok {

struct Piece {
  std::string text;
  // The piece starts at offset 0 of the original text (Metaspace's prepend_scheme "first").
  bool at_start = false;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Replaces `pieces` by their sub-pieces; empty pieces are dropped.
  virtual void pre_tokenize(std::vector<Piece>& pieces) const = 0;
  // Whether the words come out spelled byte-level (ByteLevel somewhere in the chain).
  virtual bool byte_level() const { return false; }
};

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
enum class PrependScheme { Always, Never, First };

std::unique_ptr<PreTokenizer> make_byte_level_pre_tokenizer(bool add_prefix_space, bool use_regex);
// A literal pattern when `regex` is null.
std::unique_ptr<PreTokenizer> make_split(std::string literal, std::unique_ptr<Regex> regex, SplitBehavior behavior,
                                         bool invert);
std::unique_ptr<PreTokenizer> make_metaspace(std::string replacement, PrependScheme scheme, bool split);
std::unique_ptr<PreTokenizer> make_pre_tokenizer_sequence(std::vector<std::unique_ptr<PreTokenizer>> steps);

// GPT-2's pattern, which ByteLevel applies when use_regex is true.
inline constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

}  // namespace sinklab::tok
