#pragma once
// The `task.vocab_size` option, shared by the token tasks that take a vocabulary size (copy, text_lm's
// word tokenizer): plug-ins sharing a key must share its declaration (configs/plugin_fields.cpp).
#include "core/options/option_spec.h"

namespace sinklab {

inline OptionSpec vocab_size_option() {
  return OptionSpec::integer("vocab_size", 16, Bound::at_least(2).up_to(1 << 24),
                             "token ids: BOS = 0 and content tokens 1 .. vocab_size - 1");
}

}  // namespace sinklab
