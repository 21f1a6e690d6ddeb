#pragma once
// Strict conversions of YAML scalars to numbers and booleans, and range checks (core/options/bound.h).
// Strict on purpose: a float where an integer is expected, a quoted number, or "inf" is an error rather
// than a silent truncation.
#include <cstdint>
#include <optional>
#include <string>

#include "config_loading/config_schema.h"
#include "core/options/bound.h"

namespace sinklab {

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

// Throws FieldValueError("must be >= 1, got 0") when v is outside b, and when a non-zero v inside b is
// below float32's range (models compute in float32, where it would be 0).
void check_bound(double v, const Bound& b, const std::string& shown_value);

// How a scalar is quoted in messages: 'text', "text" for a quoted scalar, !!int 'text' for a tagged one;
// control characters and bytes that are not UTF-8 are escaped (\xNN).
std::string describe_scalar(const ScalarText& s);

}  // namespace sinklab
