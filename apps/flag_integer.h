#pragma once
// Whole-number flags of the commands (`--seq-len 32`, `--window 32,64`): parsed and range-checked, or
// one clear error naming the flag and what it got.
#include <string>
#include <vector>

namespace sinklab::apps {

// A whole number in [low, high] for `flag`; std::invalid_argument otherwise.
int flag_integer(const std::string& flag, const std::string& text, int low, int high);

// A comma list of whole numbers in [low, high] for `flag` ("0,1,2,4"), ascending, each once; an empty
// list or entry is an error.
std::vector<int> flag_integer_list(const std::string& flag, const std::string& text, int low, int high);

}  // namespace sinklab::apps
