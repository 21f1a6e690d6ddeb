#pragma once
// The `task.corpus` option, shared by every task that reads a text file (plug-ins sharing a key must
// share its declaration, config_loading/plugin_fields.cpp).
#include "core/options/option_spec.h"
namespace sinklab {
inline OptionSpec corpus_option() {
  return OptionSpec::path("corpus", "data/corpora/kjv.txt",
                          "text file the task reads (bytes; scripts/get_corpus.sh writes the KJV)");
}
}  // namespace sinklab
