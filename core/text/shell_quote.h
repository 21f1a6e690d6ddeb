#pragma once
// Arguments quoted for a POSIX shell, so a printed command (a resume hint, a rerun line) can be pasted
// as it is, whatever spaces, quotes or `;` its paths hold.
#include <string>
#include <string_view>
#include <vector>

namespace sinklab {

// `arg` as one shell word: bare when it has only characters no shell treats specially (letters,
// digits, and @%+=:,./_-), else in single quotes with each ' written as '\''. The empty string is ''.
std::string shell_quote(std::string_view arg);

// The words, each quoted, joined by spaces.
std::string shell_command(const std::vector<std::string>& words);

}  // namespace sinklab
