#pragma once
// Reading required fields from nlohmann::json with errors that name the field and where it sits
// ("heads[2].sink_score: expected a number, got string"), shared by summary.json, metrics.jsonl
// and sweep.json readers. Numbers may be null: nlohmann writes NaN/inf as null, so a diverged run's
// loss reads back as NaN instead of failing.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace sinklab {

class JsonFieldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace json_fields {

// "where.key" or "key" when where is empty.
std::string field_path(const std::string& where, const std::string& key);

// The member `key` of object j; throws when j is not an object or the member is missing.
const nlohmann::json& member(const nlohmann::json& j, const std::string& key, const std::string& where);

double get_double(const nlohmann::json& j, const std::string& key, const std::string& where);
int64_t get_int(const nlohmann::json& j, const std::string& key, const std::string& where);
uint64_t get_uint(const nlohmann::json& j, const std::string& key, const std::string& where);
bool get_bool(const nlohmann::json& j, const std::string& key, const std::string& where);
std::string get_string(const nlohmann::json& j, const std::string& key, const std::string& where);
const nlohmann::json& get_array(const nlohmann::json& j, const std::string& key, const std::string& where);

}  // namespace json_fields
}  // namespace sinklab
