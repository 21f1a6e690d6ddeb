#pragma once
// A Hugging Face config.json, read key by key: every read is recorded, so that a family can refuse a
// key it neither computes nor knows to be harmless instead of ignoring it (a checkpoint whose config
// asks for something the loader does not build is refused, never approximated).
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_files/run_summary.h"  // RunFileError

namespace sinklab {

// A model folder the loader cannot build a model from: the message names the file and the key or tensor.
class OpenModelError : public RunFileError {
 public:
  using RunFileError::RunFileError;
};

class HfConfig {
 public:
  // Reads and parses `path` (bounded: 4 MB). Throws OpenModelError for a missing, non-regular, huge
  // or malformed file, or one that is not a JSON object.
  explicit HfConfig(const std::filesystem::path& path);
  HfConfig(const std::filesystem::path& path, const std::string& text);  // from text (tests, fuzzing)

  const std::filesystem::path& path() const { return path_; }
  bool has(const std::string& key) const;  // present and not null
  std::string model_type() const;          // "" when absent

  int64_t integer(const std::string& key) const;  // required
  int64_t integer_or(const std::string& key, int64_t fallback) const;
  double number_or(const std::string& key, double fallback) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  std::string string_or(const std::string& key, const std::string& fallback) const;
  // The value of an object key, or null; the caller reads its fields (and refuses unknown ones).
  const nlohmann::json& raw(const std::string& key) const;

  // Keys that do not change what the model computes (training settings, token ids, dropout, ...).
  void ignore(const std::vector<std::string>& keys) const;
  // Throws OpenModelError naming the first key (in file order) that was neither read nor ignored.
  void refuse_unread(const std::string& family) const;
  [[noreturn]] void fail(const std::string& key, const std::string& why) const;

 private:
  std::filesystem::path path_;
  nlohmann::json json_;
  mutable std::set<std::string> read_;
};

// Keys of every family's config.json that never change the forward pass.
const std::vector<std::string>& hf_config_bookkeeping_keys();

}  // namespace sinklab
