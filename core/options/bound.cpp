#include "core/options/bound.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace sinklab {
namespace {

// Bounds are mostly integers; print them as such ("1", not "1.0").
std::string bound_number(double v) {
  // 2^53: beyond it the cast to int64_t could overflow, and such bounds read better as 1e+20 anyway.
  if (std::fabs(v) < 9007199254740992.0 && v == std::trunc(v)) return std::to_string(static_cast<int64_t>(v));
  return format_number(v);
}

}  // namespace

bool Bound::contains(double v) const {
  if (lo && (lo_open ? !(v > *lo) : !(v >= *lo))) return false;
  if (hi && (hi_open ? !(v < *hi) : !(v <= *hi))) return false;
  return !limit || v <= *limit;
}

std::string Bound::text() const {
  if (limit && lo && !hi) {
    return std::string(lo_open ? "(" : "[") + bound_number(*lo) + ", " + bound_number(*limit) + "]";
  }
  return domain_text();
}

std::string Bound::domain_text() const {
  if (lo && hi) {
    return std::string(lo_open ? "(" : "[") + bound_number(*lo) + ", " + bound_number(*hi) + (hi_open ? ")" : "]");
  }
  if (lo) return std::string(lo_open ? "> " : ">= ") + bound_number(*lo);
  if (hi) return std::string(hi_open ? "< " : "<= ") + bound_number(*hi);
  return "any";
}

std::string format_number(double value) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  std::string out(buf, r.ptr);
  if (out.find_first_of(".eEn") == std::string::npos) out += ".0";  // keep numbers looking like numbers
  return out;
}

}  // namespace sinklab
