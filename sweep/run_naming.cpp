#include "sweep/run_naming.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>

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

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  std::istringstream in(key);
  for (std::string part; std::getline(in, part, '.');) parts.push_back(part);
  if (parts.empty()) parts.push_back(key);
  return parts;
}

std::string last_components(const std::vector<std::string>& parts, std::size_t count) {
  std::string label;
  for (std::size_t i = parts.size() - std::min(count, parts.size()); i < parts.size(); ++i)
    label += (label.empty() ? "" : ".") + parts[i];
  return label;
}

// The shortest tails of the keys that tell them apart; "name" alone says little, so it keeps its parent.
std::vector<std::string> key_labels(const std::vector<KeyValue>& overrides) {
  std::vector<std::vector<std::string>> parts;
  std::vector<std::size_t> depth;
  for (const auto& [key, value] : overrides) {
    parts.push_back(split_key(key));
    depth.push_back(parts.back().size() > 1 && parts.back().back() == "name" ? 2 : 1);
  }
  std::vector<std::string> labels(overrides.size());
  for (bool again = true; again;) {
    again = false;
    std::map<std::string, std::vector<std::size_t>> users;
    for (std::size_t i = 0; i < overrides.size(); ++i) {
      labels[i] = last_components(parts[i], depth[i]);
      users[labels[i]].push_back(i);
    }
    for (const auto& [label, indices] : users) {
      if (indices.size() < 2) continue;
      for (const std::size_t i : indices) {
        if (depth[i] < parts[i].size()) {
          ++depth[i];
          again = true;
        }
      }
    }
  }
  return labels;
}

// FNV-1a over the full list: stable across runs and builds, unlike std::hash.
std::string list_hash(const std::vector<KeyValue>& overrides) {
  std::uint64_t h = 14695981039346656037ull;
  for (const auto& [key, value] : overrides) {
    for (const char c : key + "=" + value + "\n") {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
  }
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%08x", static_cast<unsigned>(h ^ (h >> 32)));
  return buffer;
}

// Cuts `text` to at most `size` bytes without splitting a UTF-8 sequence (the base may hold any).
std::string cut_utf8(const std::string& text, std::size_t size) {
  if (text.size() <= size) return text;
  while (size > 0 && (static_cast<unsigned char>(text[size]) & 0xC0) == 0x80) --size;
  return text.substr(0, size);
}

}  // namespace

std::string name_with_overrides(const std::string& base, const std::vector<KeyValue>& overrides) {
  const std::vector<std::string> labels = key_labels(overrides);
  std::string name = base;
  for (std::size_t i = 0; i < overrides.size(); ++i)
    name += "-" + sanitize_for_path(labels[i] + "=" + compact_value(overrides[i].second));
  if (name.size() <= kMaxNameBytes) return name;
  const std::string suffix = "-h" + list_hash(overrides);
  std::string kept = cut_utf8(name, kMaxNameBytes - suffix.size());
  while (!kept.empty() && kept.back() == '-') kept.pop_back();  // no "--h..." where a cut met a separator
  return kept + suffix;
}

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
