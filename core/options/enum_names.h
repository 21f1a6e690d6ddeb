#pragma once
// YAML spelling of enum values: a plain struct's enum specializes EnumNames next to its definition,
// and the config schema, the writer and messages all read the same spelling.
#include <array>
#include <cstddef>
#include <string_view>

namespace sinklab {

template <typename E>
struct EnumNames;

template <typename E>
  requires requires { EnumNames<E>::values; }
constexpr std::string_view to_string(E value) {
  return EnumNames<E>::values[static_cast<std::size_t>(value)];
}

}  // namespace sinklab
