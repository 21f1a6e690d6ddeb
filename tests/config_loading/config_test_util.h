#pragma once
// Shared helpers of the configs tests: a fixed vocabulary and "this must fail with ..." checks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config_loading/config_loader.h"
#include "layers/normalizers/normalizer_registry.h"

namespace sinklab::testing {

inline ConfigVocabulary test_vocab() { return {{"softmax", "relu"}, {"trigger_conditional"}}; }

inline RunConfig parse(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return parse_run_config(yaml, "configs/x.yaml", overrides, test_vocab());
}

// The ConfigError that parsing must raise; fails the test (and returns an empty error) when none is.
inline ConfigError parse_error(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    parse(yaml, overrides);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError for:\n" << yaml;
  return ConfigError("", 0, "", "");
}

// The normalizers that declare option `key`, in registration order, as messages list them: "'relu', 'relu2'"
// (a new normalizer sharing the key needs no edit here).
inline std::string quoted_owners_of(const std::string& key, const char* quote = "'") {
  std::string out;
  for (const auto& r : normalizer_registry().registrations())
    for (const auto& option : r.options)
      if (option.key == key) out += (out.empty() ? "" : ", ") + std::string(quote) + r.name + quote;
  return out;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace sinklab::testing
