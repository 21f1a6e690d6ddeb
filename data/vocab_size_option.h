#pragma once
// The `task.vocab_size` option of the tasks with uniform token ids (copy, induction) and of text_lm's word
// tokenizer: plug-ins sharing a
// key must share its declaration (config_loading/plugin_fields.cpp). A task needing more ids checks in its
// constructor. One default for both (16, copy's): the declarations must be identical, default included.
#include "core/options/option_spec.h"
namespace sinklab {
inline OptionSpec vocab_size_option() {
  return OptionSpec::integer("vocab_size", 16, Bound::at_least(2).up_to(1 << 24),
                             "token ids: BOS = 0 and content tokens 1 .. vocab_size - 1");
}
}  // namespace sinklab
