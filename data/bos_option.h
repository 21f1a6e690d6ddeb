#pragma once
// The `task.bos` option of the tasks that can drop their BOS token (trigger_conditional, text_lm):
// plug-ins sharing a key must share its declaration (config_loading/plugin_fields.cpp). Position 0
// stays the sink key either way, so the sink statistics read the same position with and without BOS.
#include "core/options/option_spec.h"
namespace sinklab {
inline OptionSpec bos_option() {
  return OptionSpec::boolean("bos", true,
                             "false: position 0 is an ordinary token, no content-free key (trigger_conditional: "
                             "the mean includes it; text_lm: seq_len packed corpus tokens)");
}
}  // namespace sinklab
