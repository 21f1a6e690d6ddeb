#pragma once
// A loaded model run on sequences longer than it was built for (`sinklab eval --seq-len`, `--stream
// --window`): the same weights in a model built for the longer length.
#include <memory>
#include <string>

#include "models/model.h"

namespace sinklab::apps {

// The loaded model when T fits it, else the same weights in a model built for T (exactly the same
// parameters). A parameter that depends on the length (learned positions) is std::invalid_argument,
// starting with `flag_text` (e.g. "--seq-len 200").
std::unique_ptr<Model> model_for_length(std::unique_ptr<Model> loaded, int T, const std::string& flag_text);

}  // namespace sinklab::apps
