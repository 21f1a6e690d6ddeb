#pragma once
// "Did you mean ...?" suggestions for misspelled keys and names.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sinklab {

// Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps cost 1,
// compared case-insensitively (so "layres" and "Layers" are both one step from "layers").
int edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` when it is close enough to be a plausible typo: at most one edit
// for short words, up to a third of the word's length (capped at 3) for longer ones.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "a, b, c"
std::string join_names(const std::vector<std::string>& names);

}  // namespace sinklab
