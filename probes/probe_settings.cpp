#include "probes/probe_settings.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace sinklab::probes {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}

[[noreturn]] void bad(const std::string& flag, const std::string& expected, const std::string& text) {
  throw std::invalid_argument(flag + ": expected " + expected + ", got '" + text + "'");
}

long long whole(const std::string& flag, const std::string& part, const std::string& expected,
                const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(part, &used);
  } catch (const std::exception&) {
    bad(flag, expected, text);
  }
  if (used != part.size() || part.empty()) bad(flag, expected, text);
  return v;
}

double number(const std::string& flag, const std::string& part, const std::string& expected, const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(part, &used);
  } catch (const std::exception&) {
    bad(flag, expected, text);
  }
  if (used != part.size() || part.empty() || !std::isfinite(v)) bad(flag, expected, text);
  return v;
}

template <class E>
E choice(const std::string& flag, const std::string& text, const std::vector<std::pair<std::string, E>>& choices) {
  std::string names;
  for (const auto& [name, value] : choices) {
    if (text == name) return value;
    names += (names.empty() ? "" : " or ") + name;
  }
  bad(flag, names, text);
}

}  // namespace

std::vector<int> parse_int_list(const std::string& flag, const std::string& text, int lo, int hi) {
  const std::string expected = "a comma-separated ascending list of whole numbers in " + std::to_string(lo) + " .. " +
                               std::to_string(hi) + " (a,b,...,c continues the ratio b/a)";
  const std::vector<std::string> parts = split(text, ',');
  if (parts.empty()) bad(flag, expected, text);
  std::vector<long long> values;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "...") {
      if (values.size() < 2 || i + 1 != parts.size() - 1) bad(flag, expected, text);
      const long long a = values[values.size() - 2], b = values.back();
      if (a <= 0 || b <= a || b % a != 0) bad(flag, expected, text);
      const long long end = whole(flag, parts[i + 1], expected, text);
      for (long long v = b * (b / a); v < end && v <= hi; v *= b / a) values.push_back(v);
      values.push_back(end);
      break;
    }
    values.push_back(whole(flag, parts[i], expected, text));
  }
  std::vector<int> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] < lo || values[i] > hi || (i > 0 && values[i] <= values[i - 1])) bad(flag, expected, text);
    out.push_back(static_cast<int>(values[i]));
  }
  return out;
}

std::vector<double> parse_positive_list(const std::string& flag, const std::string& text) {
  const std::string expected = "a comma-separated ascending list of positive numbers, or lo:hi:count (log-spaced)";
  if (text.find(':') != std::string::npos) {
    const std::vector<std::string> parts = split(text, ':');
    if (parts.size() != 3) bad(flag, expected, text);
    const double lo = number(flag, parts[0], expected, text), hi = number(flag, parts[1], expected, text);
    const long long count = whole(flag, parts[2], expected, text);
    if (lo <= 0 || hi <= lo || count < 2 || count > 10000) bad(flag, expected, text);
    std::vector<double> out;
    for (long long i = 0; i < count; ++i)
      out.push_back(std::exp(std::log(lo) +
                             (std::log(hi) - std::log(lo)) * static_cast<double>(i) / static_cast<double>(count - 1)));
    return out;
  }
  std::vector<double> out;
  for (const std::string& part : split(text, ',')) {
    const double v = number(flag, part, expected, text);
    if (v <= 0 || (!out.empty() && v <= out.back())) bad(flag, expected, text);
    out.push_back(v);
  }
  if (out.empty()) bad(flag, expected, text);
  return out;
}

std::vector<int> default_lengths(int max_len) {
  std::vector<int> out;
  for (int L = 32; L <= max_len; L *= 2) out.push_back(L);
  if (out.empty()) out.push_back(max_len);
  return out;
}

std::vector<int> critical_n_grid(int L) {
  std::vector<int> out;
  for (int N = 1; N <= 16 && N < L; ++N) out.push_back(N);
  for (int N = 24; N <= L / 4 && N < L; N = static_cast<int>(std::ceil(N * 1.5))) out.push_back(N);
  return out;
}

ProbeSettings parse_probe_settings(const ProbeFlagTexts& f) {
  ProbeSettings s;
  if (!f.lengths.empty()) s.lengths = parse_int_list("--L", f.lengths, 2, 1 << 20);
  if (!f.n_values.empty()) s.n_values = parse_int_list("--N", f.n_values, 1, 1 << 20);
  const long long windows = whole("--windows", f.windows, "one whole number in 1 .. 4096", f.windows);
  if (windows < 1 || windows > 4096) bad("--windows", "one whole number in 1 .. 4096", f.windows);
  s.windows = static_cast<int>(windows);
  s.vectors =
      choice<VectorKind>("--vectors", f.vectors, {{"value", VectorKind::value}, {"hidden", VectorKind::hidden}});
  s.distance = choice<DistanceKind>("--distance", f.distance, {{"r1", DistanceKind::r1}, {"r2", DistanceKind::r2}});
  s.expectation = choice<ExpectationKind>("--expectation", f.expectation,
                                          {{"main", ExpectationKind::main}, {"mc", ExpectationKind::mc}});
  const long long mc = whole("--mc-samples", f.mc_samples, "a whole number in 1 .. 100000", f.mc_samples);
  if (mc < 1 || mc > 100000) bad("--mc-samples", "a whole number in 1 .. 100000", f.mc_samples);
  s.mc_samples = static_cast<int>(mc);
  s.ks_alpha = number("--ks-alpha", f.ks_alpha, "a number in (0, 1)", f.ks_alpha);
  if (!(s.ks_alpha > 0 && s.ks_alpha < 1)) bad("--ks-alpha", "a number in (0, 1)", f.ks_alpha);
  s.temperatures = parse_positive_list("--T", f.temperatures);
  s.eps = parse_positive_list("--eps", f.eps);
  const long long threads = whole("--threads", f.threads, "a whole number in 0 .. 1024 (0 = the run's)", f.threads);
  if (threads < 0 || threads > 1024) bad("--threads", "a whole number in 0 .. 1024 (0 = the run's)", f.threads);
  s.threads = static_cast<int>(threads);
  if (f.seed.starts_with('-')) bad("--seed", "a whole number in 0 .. 2^63-1", f.seed);
  s.seed = static_cast<uint64_t>(whole("--seed", f.seed, "a whole number in 0 .. 2^63-1", f.seed));
  return s;
}

}  // namespace sinklab::probes
