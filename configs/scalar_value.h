#pragma once
// Strict conversions of YAML scalars to numbers and booleans, plus the numeric ranges the schema uses.
// Strict on purpose: a float where an integer is expected, a quoted number, or "inf" is an error rather
// than a silent truncation.
#include <cstdint>
#include <optional>
#include <string>

#include "configs/config_schema.h"

namespace sinklab {

// An interval with optional, open or closed ends; text() is how messages and docs print it.
// `limit` is a sanity cap on a count whose domain is open-ended (`heads >= 1`, at most 1024): a value
// below the domain is reported with the domain alone ("must be >= 1"), one above the cap with both.
struct Bound {
  std::optional<double> lo, hi;
  bool lo_open = false, hi_open = false;
  std::optional<double> limit;

  static Bound any() { return {}; }
  static Bound at_least(double lo) { return {lo, std::nullopt, false, false, std::nullopt}; }
  static Bound above(double lo) { return {lo, std::nullopt, true, false, std::nullopt}; }
  static Bound closed(double lo, double hi) { return {lo, hi, false, false, std::nullopt}; }
  static Bound closed_open(double lo, double hi) { return {lo, hi, false, true, std::nullopt}; }
  static Bound open(double lo, double hi) { return {lo, hi, true, true, std::nullopt}; }

  Bound up_to(double max) const {
    Bound b = *this;
    b.limit = max;
    return b;
  }

  bool contains(double v) const;
  std::string text() const;         // ">= 1", "> 0", "[1, 256]" (with a limit), "[0, 1)", "(0, 1)", "any"
  std::string domain_text() const;  // text() without the limit
};

// The loader's view of a YAML scalar from its text and yaml-cpp's tag: "?" (none) is plain, "!" (quoted)
// is a string, the core tags !!int, !!float, !!bool are plain and !!str a string; any other tag is
// kept in `tag` for check_tag() to refuse.
ScalarText scalar_text(const std::string& text, const std::string& yaml_tag);
// Throws FieldValueError for a tag other than the four core scalar tags.
void check_tag(const ScalarText& s);

// Each throws FieldValueError("expected an integer, got '1.5'") and the like.
int64_t parse_integer(const ScalarText& s);
uint64_t parse_unsigned(const ScalarText& s);
double parse_number(const ScalarText& s);  // finite only
bool parse_bool(const ScalarText& s);      // YAML's spellings: true/false, yes/no, on/off

// Throws FieldValueError("must be >= 1, got 0") when v is outside b.
void check_bound(double v, const Bound& b, const std::string& shown_value);

// How a scalar is quoted in messages: 'text', "text" for a quoted scalar, !!int 'text' for a tagged one;
// control characters and bytes that are not UTF-8 are escaped (\xNN).
std::string describe_scalar(const ScalarText& s);

}  // namespace sinklab
