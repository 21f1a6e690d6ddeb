#include "run_files/npy_header.h"

#include <limits>

namespace sinklab {
namespace {

[[noreturn]] void problem(const std::string& why) { throw NpyHeaderProblem(why); }

// The text after "'key':" in the dict, up to the next top-level ',' or '}'.
std::string dict_value(const std::string& header, const std::string& key) {
  const std::string quoted = "'" + key + "'";
  size_t pos = header.find(quoted);
  if (pos == std::string::npos) problem("header has no " + quoted + " entry");
  pos = header.find(':', pos + quoted.size());
  if (pos == std::string::npos) problem("malformed header entry " + quoted);
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  size_t end = pos;
  for (int depth = 0; end < header.size(); ++end) {
    const char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  std::string value = header.substr(pos, end - pos);
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return value;
}

std::vector<int64_t> parse_shape(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') problem("shape is not a tuple: " + text);
  std::vector<int64_t> shape;
  size_t pos = 1;
  while (pos < text.size() - 1) {
    while (pos < text.size() - 1 && (text[pos] == ' ' || text[pos] == ',')) ++pos;
    if (pos >= text.size() - 1) break;
    if (text[pos] == '-') problem("negative dimension in shape " + text);
    int64_t d = 0;
    bool digits = false;
    for (; pos < text.size() - 1 && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
      const int digit = text[pos] - '0';
      if (d > (std::numeric_limits<int64_t>::max() - digit) / 10) problem("dimension too large in shape " + text);
      d = d * 10 + digit;
      digits = true;
    }
    if (!digits) problem("bad dimension in shape " + text);
    shape.push_back(d);
  }
  return shape;
}

}  // namespace

NpyHeaderDict parse_npy_header_dict(const std::string& header) {
  NpyHeaderDict dict;
  dict.descr = dict_value(header, "descr");
  const std::string fortran = dict_value(header, "fortran_order");
  if (fortran != "False" && fortran != "True") problem("fortran_order is " + fortran + ", not True or False");
  dict.fortran_order = fortran == "True";
  dict.shape = parse_shape(dict_value(header, "shape"));
  return dict;
}

}  // namespace sinklab
