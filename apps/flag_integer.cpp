#include "apps/flag_integer.h"

#include <algorithm>
#include <stdexcept>

namespace sinklab::apps {

int flag_integer(const std::string& flag, const std::string& text, int low, int high) {
  size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < low || value > high)
    throw std::invalid_argument(flag + ": expected a whole number in " + std::to_string(low) + " .. " +
                                std::to_string(high) + ", got '" + text + "'");
  return static_cast<int>(value);
}

std::vector<int> flag_integer_list(const std::string& flag, const std::string& text, int low, int high) {
  std::vector<int> values;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = text.find(',', from);
    const std::string entry = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    try {
      values.push_back(flag_integer(flag, entry, low, high));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(e.what()) +
                                  (text.find(',') == std::string::npos ? "" : " in the list '" + text + "'"));
    }
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

}  // namespace sinklab::apps
