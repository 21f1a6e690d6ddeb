#include "core/text/shell_quote.h"

#include <algorithm>
#include <cctype>

namespace sinklab {

std::string shell_quote(std::string_view arg) {
  const auto safe = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("@%+=:,./_-").find(c) != std::string_view::npos;
  };
  if (!arg.empty() && std::all_of(arg.begin(), arg.end(), safe)) return std::string(arg);
  std::string quoted = "'";
  for (const char c : arg) {
    if (c == '\'')
      quoted += "'\\''";  // close the quotes, an escaped quote, reopen
    else
      quoted += c;
  }
  return quoted + "'";
}

std::string shell_command(const std::vector<std::string>& words) {
  std::string command;
  for (const std::string& word : words) command += (command.empty() ? "" : " ") + shell_quote(word);
  return command;
}

}  // namespace sinklab
