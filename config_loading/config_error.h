#pragma once
// The one error type of configuration loading. Its message always starts with where the problem is:
//   configs/x.yaml:12: model.attention.normalizr: unknown key; did you mean 'normalizer'?
//   --set model.heads=two: model.heads: expected an integer, got 'two'
#include <stdexcept>
#include <string>

namespace sinklab {

class ConfigError : public std::runtime_error {
 public:
  // line is 1-based; 0 when the problem has no line (a missing file, an override, a default value).
  // key is the dotted key path; empty when the problem is not about one key.
  ConfigError(std::string source, int line, std::string key, std::string message);

  const std::string& source() const { return source_; }
  int line() const { return line_; }
  const std::string& key() const { return key_; }
  const std::string& detail() const { return detail_; }  // the message without the location prefix

 private:
  std::string source_;
  int line_;
  std::string key_;
  std::string detail_;
};

}  // namespace sinklab
