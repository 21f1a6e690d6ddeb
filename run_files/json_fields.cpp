#include "run_files/json_fields.h"

#include <limits>

namespace sinklab::json_fields {
namespace {

[[noreturn]] void wrong_type(const nlohmann::json& value, const std::string& path, const char* expected) {
  throw JsonFieldError(path + ": expected " + expected + ", got " + value.type_name() +
                       (value.is_primitive() ? " " + value.dump() : ""));
}

}  // namespace

std::string field_path(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

const nlohmann::json& member(const nlohmann::json& j, const std::string& key, const std::string& where) {
  if (!j.is_object())
    throw JsonFieldError((where.empty() ? std::string("document") : where) + ": expected an object, got " +
                         j.type_name());
  const auto it = j.find(key);
  if (it == j.end()) throw JsonFieldError(field_path(where, key) + ": missing field");
  return *it;
}

double get_double(const nlohmann::json& j, const std::string& key, const std::string& where) {
  const nlohmann::json& v = member(j, key, where);
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v.is_number()) wrong_type(v, field_path(where, key), "a number");
  return v.get<double>();
}

int64_t get_int(const nlohmann::json& j, const std::string& key, const std::string& where) {
  const nlohmann::json& v = member(j, key, where);
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    wrong_type(v, field_path(where, key), "an integer below 2^63");
  if (!v.is_number_integer()) wrong_type(v, field_path(where, key), "an integer");
  return v.get<int64_t>();
}

uint64_t get_uint(const nlohmann::json& j, const std::string& key, const std::string& where) {
  const nlohmann::json& v = member(j, key, where);
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  wrong_type(v, field_path(where, key), "a non-negative integer");
}

bool get_bool(const nlohmann::json& j, const std::string& key, const std::string& where) {
  const nlohmann::json& v = member(j, key, where);
  if (!v.is_boolean()) wrong_type(v, field_path(where, key), "true or false");
  return v.get<bool>();
}

std::string get_string(const nlohmann::json& j, const std::string& key, const std::string& where) {
  const nlohmann::json& v = member(j, key, where);
  if (!v.is_string()) wrong_type(v, field_path(where, key), "a string");
  return v.get<std::string>();
}

const nlohmann::json& get_array(const nlohmann::json& j, const std::string& key, const std::string& where) {
  const nlohmann::json& v = member(j, key, where);
  if (!v.is_array()) wrong_type(v, field_path(where, key), "an array");
  return v;
}

}  // namespace sinklab::json_fields
