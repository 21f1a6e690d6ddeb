#include "config_loading/run_name.h"

#include "config_loading/utf8.h"

namespace sinklab {

std::string run_name_problem(std::string_view name) {
  if (name.empty()) return "must not be empty (it names the run folder)";
  // Checked before anything quotes the name: a 50 MB value must not be repeated in the message.
  if (name.size() > kMaxRunNameBytes) {
    return "must be at most " + std::to_string(kMaxRunNameBytes) + " bytes, got " + std::to_string(name.size());
  }
  const std::string shown = "'" + escape_for_message(name) + "'";
  if (const auto at = control_character_offset(name)) {
    return "must not contain a control character (tab, newline, ...), got " + shown + " (offset " +
           std::to_string(*at) + ")";
  }
  if (name == "." || name == ".." || name.find_first_of("/\\") != std::string_view::npos) {
    return "must be a single folder name (no '/' or '\\', not '.' or '..'), got " + shown;
  }
  if (name.front() == '-') return "must not start with '-' (it would read as a flag), got " + shown;
  return "";
}

}  // namespace sinklab
