#pragma once
// A numeric range with optional, open or closed ends, used by config keys and plug-in options alike;
// text() is how messages and docs print it.
#include <optional>
#include <string>

namespace sinklab {

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
  bool operator==(const Bound&) const = default;
};

// Shortest text that reads back to exactly the same double ("0.001", "1e-08", "5.0").
std::string format_number(double value);

}  // namespace sinklab
