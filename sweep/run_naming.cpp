#include "sweep/run_naming.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace sinklab::sweep {
namespace {

// Shortest round-trip text of x in the given format.
std::string shortest(double x, std::chars_format format) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), x, format);
  return std::string(buffer.data(), result.ptr);
}

// "3e-04" -> "3e-4", "1e+05" -> "1e5".
std::string tidy_exponent(const std::string& text) {
  const auto e = text.find('e');
  if (e == std::string::npos) return text;
  std::string mantissa = text.substr(0, e);
  std::string exponent = text.substr(e + 1);
  std::string sign;
  if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
    if (exponent[0] == '-') sign = "-";
    exponent.erase(0, 1);
  }
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return mantissa + "e" + sign + exponent;
}

}  // namespace

bool is_safe_path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '=' ||
         c == '+';
}

std::string compact_value(const std::string& text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  std::int64_t integer = 0;
  if (auto r = std::from_chars(first, last, integer); r.ec == std::errc() && r.ptr == last)
    return std::to_string(integer);
  double x = 0.0;
  if (auto r = std::from_chars(first, last, x); r.ec != std::errc() || r.ptr != last || !std::isfinite(x))
    return text;
  // Learning rates and friends read best in scientific form once they have three leading zeros.
  const double magnitude = std::fabs(x);
  if (x == 0.0 || (magnitude >= 1e-3 && magnitude < 1e6)) return shortest(x, std::chars_format::fixed);
  return tidy_exponent(shortest(x, std::chars_format::scientific));
}

std::string sanitize_for_path(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (!is_safe_path_char(c)) c = '-';
  return out;
}

}  // namespace sinklab::sweep
