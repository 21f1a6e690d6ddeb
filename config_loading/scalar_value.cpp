#include "config_loading/scalar_value.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <initializer_list>
#include <cmath>
#include <limits>
#include <system_error>

#include "config_loading/utf8.h"

namespace sinklab {
namespace {

// from_chars rejects a leading '+', YAML allows it.
std::string_view strip_plus(std::string_view t) {
  if (t.size() > 1 && t[0] == '+' && t[1] != '-') t.remove_prefix(1);
  return t;
}

constexpr const char* kCoreTagPrefix = "tag:yaml.org,2002:";

[[noreturn]] void expected(const char* what, const ScalarText& s) {
  if (!s.plain) {
    const char* kind = s.tag.empty() ? ", got the quoted string " : ", got the string ";
    throw FieldValueError(std::string("expected ") + what + kind + describe_scalar(s));
  }
  throw FieldValueError(std::string("expected ") + what + ", got " + describe_scalar(s));
}

// A value explicitly tagged as another type than the key's (`threads: !!float 2`).
void reject_tags(const char* what, const ScalarText& s, std::initializer_list<const char*> wrong) {
  for (const char* tag : wrong) {
    if (s.tag == tag) expected(what, s);
  }
}

bool looks_numeric(std::string_view t) {
  double v = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

}  // namespace

ScalarText scalar_text(const std::string& text, const std::string& yaml_tag) {
  if (yaml_tag == "?") return {text, true, ""};
  if (yaml_tag == "!" || yaml_tag.empty()) return {text, false, ""};
  const std::string_view prefix = kCoreTagPrefix;
  std::string tag = yaml_tag;
  if (tag.starts_with(prefix)) tag = "!!" + tag.substr(prefix.size());
  const bool typed = tag == "!!int" || tag == "!!float" || tag == "!!bool";
  return {text, typed, tag};
}

void check_tag(const ScalarText& s) {
  if (s.tag.empty() || s.tag == "!!int" || s.tag == "!!float" || s.tag == "!!bool" || s.tag == "!!str") return;
  throw FieldValueError("unsupported YAML tag '" + escape_for_message(s.tag) +
                        "'; only !!int, !!float, !!bool and !!str are understood");
}

std::string describe_scalar(const ScalarText& s) {
  const std::string text = escape_for_message(s.text);
  if (!s.tag.empty()) return s.tag + " '" + text + "'";
  return s.plain ? "'" + text + "'" : "\"" + text + "\"";
}

int64_t parse_integer(const ScalarText& s) {
  reject_tags("an integer", s, {"!!float", "!!bool"});
  const std::string_view t = strip_plus(s.text);
  int64_t v = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (!s.plain || t.empty()) expected("an integer", s);
  if (r.ec == std::errc::result_out_of_range) {
    throw FieldValueError("integer " + describe_scalar(s) + " is out of range");
  }
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) {
    if (looks_numeric(t)) throw FieldValueError("expected an integer (no decimal point or exponent), got " + s.text);
    expected("an integer", s);
  }
  return v;
}

uint64_t parse_unsigned(const ScalarText& s) {
  reject_tags("a non-negative integer", s, {"!!float", "!!bool"});
  const std::string_view t = strip_plus(s.text);
  if (s.plain && !t.empty() && t[0] == '-' && looks_numeric(t)) {
    throw FieldValueError("expected a non-negative integer, got " + s.text);
  }
  uint64_t v = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (!s.plain || t.empty()) expected("a non-negative integer", s);
  if (r.ec == std::errc::result_out_of_range) {
    throw FieldValueError("integer " + describe_scalar(s) + " is out of range");
  }
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) {
    if (looks_numeric(t)) throw FieldValueError("expected an integer (no decimal point or exponent), got " + s.text);
    expected("a non-negative integer", s);
  }
  return v;
}

double parse_number(const ScalarText& s) {
  reject_tags("a number", s, {"!!bool"});  // !!int 3 is a fine number
  const std::string_view t = strip_plus(s.text);
  if (!s.plain || t.empty()) expected("a number", s);
  double v = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (r.ec == std::errc::result_out_of_range) {
    throw FieldValueError("number " + describe_scalar(s) + " is out of range");
  }
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) expected("a number", s);
  // from_chars accepts "inf" and "nan"; no setting means anything with them.
  if (!std::isfinite(v)) throw FieldValueError("expected a finite number, got " + describe_scalar(s));
  return v;
}

bool parse_bool(const ScalarText& s) {
  reject_tags("true or false", s, {"!!int", "!!float"});
  bool v = false;
  if (!s.plain || !YAML::convert<bool>::decode(YAML::Node(s.text), v)) expected("true or false", s);
  return v;
}

void check_bound(double v, const Bound& b, const std::string& shown_value) {
  if (b.contains(v)) {
    // Models compute in float32, where such a value would silently become 0.
    if (v != 0 && static_cast<float>(v) == 0.0f)
      throw FieldValueError("is below float32's range (the smallest is about 1.4e-45), where it would be 0; got " +
                            shown_value);
    return;
  }
  Bound domain = b;
  domain.limit.reset();
  throw FieldValueError("must be " + (domain.contains(v) ? b.text() : b.domain_text()) + ", got " + shown_value);
}

}  // namespace sinklab
