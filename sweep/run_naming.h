#pragma once
// How runs are named: compact value text for labels ("3e-4", not "0.00030000"), and run ids that are
// safe as folder names on any filesystem and in a shell.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace sinklab::sweep {

// The longest sweep name, variant name or run id (each becomes one folder name). Filesystems allow
// 255 bytes per component; 100 leaves room for suffixes such as ".tmp" and keeps paths readable.
inline constexpr std::size_t kMaxNameBytes = 100;

// Letters, digits and . _ - = + : the characters a run id or sweep name may contain.
bool is_safe_path_char(char c);

// A YAML scalar as it should read in a label: numbers in their shortest form (1.0e-3 -> 0.001,
// 3.0e-4 -> 3e-4, 2.50 -> 2.5), anything else unchanged.
std::string compact_value(const std::string& text);

// Replaces every character that is not is_safe_path_char by '-'.
std::string sanitize_for_path(const std::string& text);

// A config key and the value an override gives it, as typed: {"model.attention.normalizer", "relu"}.
using KeyValue = std::pair<std::string, std::string>;

// "1x1_softmax-normalizer=relu-lr=3e-4": `base`, then "-label=value" per override, in order. A label is
// the key's last component ("normalizer"), with more of the path where two keys would read alike
// (attention.dropout / embedding.dropout) or where the last one says little ("normalizer.name"); values
// are compact_value'd and sanitize_for_path'd. A result longer than kMaxNameBytes is cut and ends in
// "-h" + 8 hex digits of a hash of the whole list, so that two long lists still get different names.
std::string name_with_overrides(const std::string& base, const std::vector<KeyValue>& overrides);

}  // namespace sinklab::sweep
