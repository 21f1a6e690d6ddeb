#pragma once
// The one exception of the tokenizers library: a missing, malformed or unsupported tokenizer.json
// (the message names the file and the JSON key), or a bad call (an id out of range).
#include <stdexcept>

namespace sinklab {

class TokenizerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sinklab
