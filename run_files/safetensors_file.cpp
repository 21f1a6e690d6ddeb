#include "run_files/safetensors_file.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/io/file_read.h"
#include "core/io/file_write.h"

namespace sinklab {
namespace {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

using Json = nlohmann::ordered_json;  // keeps the writer's order, so equal input gives equal bytes

constexpr char kMetadataKey[] = "__metadata__";
constexpr size_t kLengthBytes = 8;

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw SafetensorsError("safetensors file " + where + ": " + why);
}

// Names from a file may hold any character: messages show control bytes as \xNN.
std::string printable(std::string_view s) {
  std::string out;
  for (const unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// product(shape), or nothing when it does not fit in 64 bits as a byte count.
std::optional<uint64_t> element_count(const std::vector<int64_t>& shape) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  constexpr uint64_t kLimit = UINT64_MAX / sizeof(float);
  uint64_t n = 1;
  for (const int64_t d : shape) {
    const auto u = static_cast<uint64_t>(d);
    if (n > kLimit / u) return std::nullopt;
    n *= u;
  }
  return n;
}

uint64_t read_u64_le(std::string_view bytes) {
  uint64_t v = 0;
  std::memcpy(&v, bytes.data(), sizeof v);
  return v;
}

// The data span one header entry claims, before the spans are checked against each other.
struct Entry {
  std::string name;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

Entry parse_entry(const std::string& name, const Json& value, uint64_t data_bytes, const std::string& where) {
  const std::string tensor = "tensor " + printable(name);
  if (name.empty()) fail(where, "a tensor has an empty name");
  if (!value.is_object()) fail(where, tensor + ": expected an object {dtype, shape, data_offsets}");
  for (const auto& item : value.items())
    if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets")
      fail(where, tensor + ": unknown field \"" + printable(item.key()) + "\"");
  const auto field = [&](const char* key) -> const Json& {
    if (!value.contains(key)) fail(where, tensor + ": no \"" + std::string(key) + "\"");
    return value.at(key);
  };
  const Json& dtype = field("dtype");
  if (!dtype.is_string()) fail(where, tensor + ": dtype is not a string");
  if (dtype.get<std::string>() != "F32")
    fail(where, tensor + ": dtype " + printable(dtype.get<std::string>()) + " is not supported (only F32, float32)");

  Entry e;
  e.name = name;
  const Json& shape = field("shape");
  if (!shape.is_array()) fail(where, tensor + ": shape is not an array");
  for (const Json& d : shape) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      fail(where, tensor + ": shape " + printable(shape.dump()) + " holds something other than a non-negative integer");
    e.shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
  }
  const Json& offsets = field("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
    fail(where, tensor + ": data_offsets " + printable(offsets.dump()) + " is not [begin, end] with integers >= 0");
  e.begin = offsets[0].get<uint64_t>();
  e.end = offsets[1].get<uint64_t>();
  const std::string span = "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  if (e.begin > e.end) fail(where, tensor + ": " + span + " end before they begin");
  if (e.end > data_bytes)
    fail(where, tensor + ": " + span + " reach past the data, which has " + std::to_string(data_bytes) + " bytes");
  const auto n = element_count(e.shape);
  if (!n) fail(where, tensor + ": shape " + shape_text(e.shape) + " is too large (its byte size overflows 64 bits)");
  if (e.end - e.begin != *n * sizeof(float))
    fail(where, tensor + ": shape " + shape_text(e.shape) + " needs " + std::to_string(*n * sizeof(float)) +
                    " bytes of F32, but " + span + " hold " + std::to_string(e.end - e.begin));
  return e;
}

SafetensorsMetadata parse_metadata(const Json& value, const std::string& where) {
  if (!value.is_object()) fail(where, "__metadata__ is not an object of strings");
  SafetensorsMetadata out;
  for (const auto& [key, v] : value.items()) {
    if (!v.is_string()) fail(where, "__metadata__ entry \"" + printable(key) + "\" is not a string");
    out.emplace_back(key, v.get<std::string>());
  }
  return out;
}

}  // namespace

std::string encode_safetensors(const std::vector<NamedTensor>& tensors, const SafetensorsMetadata& metadata,
                               const std::string& where) {
  Json header = Json::object();
  if (!metadata.empty()) {
    Json meta = Json::object();
    for (const auto& [key, value] : metadata) meta[key] = value;
    header[kMetadataKey] = std::move(meta);
  }
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const NamedTensor& t : tensors) {
    if (t.name.empty() || t.name == kMetadataKey) fail(where, "cannot write a tensor named \"" + t.name + "\"");
    if (!names.insert(t.name).second) fail(where, "tensor " + t.name + " is given twice");
    int64_t n = 1;
    for (const int64_t d : t.shape) {
      if (d < 0) fail(where, "tensor " + t.name + ": negative dimension in shape " + shape_text(t.shape));
      n *= d;
    }
    if (static_cast<uint64_t>(n) != t.values.size())
      fail(where, "tensor " + t.name + ": shape " + shape_text(t.shape) + " holds " + std::to_string(n) + " values, " +
                      std::to_string(t.values.size()) + " were given");
    const uint64_t bytes = t.values.size() * sizeof(float);
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string json = header.dump();
  json.append((kLengthBytes - json.size() % kLengthBytes) % kLengthBytes, ' ');  // data starts 8-byte aligned
  const uint64_t length = json.size();
  std::string out(reinterpret_cast<const char*>(&length), kLengthBytes);
  out.reserve(kLengthBytes + json.size() + offset);
  out += json;
  for (const NamedTensor& t : tensors)
    out.append(reinterpret_cast<const char*>(t.values.data()), t.values.size() * sizeof(float));
  return out;
}

void write_safetensors(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
                       const SafetensorsMetadata& metadata) {
  write_file_atomically(path, encode_safetensors(tensors, metadata, path.string()));
}

SafetensorsContent decode_safetensors(std::string_view bytes, const std::string& where) {
  if (bytes.size() < kLengthBytes)
    fail(where, "truncated: " + std::to_string(bytes.size()) + " bytes, fewer than the 8-byte header length");
  const uint64_t header_bytes = read_u64_le(bytes);
  const uint64_t left = bytes.size() - kLengthBytes;
  if (header_bytes > kMaxSafetensorsHeaderBytes)
    fail(where, "header length " + std::to_string(header_bytes) + " is more than the " +
                    std::to_string(kMaxSafetensorsHeaderBytes) + " bytes allowed (not a safetensors file?)");
  if (header_bytes > left)
    fail(where, "truncated header: it announces " + std::to_string(header_bytes) + " bytes, the file has " +
                    std::to_string(left) + " after the length");
  const std::string_view text = bytes.substr(kLengthBytes, header_bytes);
  const std::string_view data = bytes.substr(kLengthBytes + header_bytes);
  if (text.empty() || text.front() != '{') fail(where, "the header is not a JSON object (it must start with '{')");

  // Repeated top-level names would silently replace each other in the parsed object: find them first.
  std::string repeated;
  std::set<std::string> seen;
  const Json::parser_callback_t on_key = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth == 1 && event == Json::parse_event_t::key && !seen.insert(parsed.get<std::string>()).second &&
        repeated.empty())
      repeated = parsed.get<std::string>();
    return true;
  };
  Json header;
  try {
    header = Json::parse(text, on_key);
  } catch (const Json::exception& e) {
    fail(where, std::string("the header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail(where, "the header is not a JSON object");
  if (!repeated.empty()) fail(where, "the header names \"" + printable(repeated) + "\" twice");

  SafetensorsContent content;
  std::vector<Entry> entries;
  for (const auto& [name, value] : header.items()) {
    if (name == kMetadataKey)
      content.metadata = parse_metadata(value, where);
    else
      entries.push_back(parse_entry(name, value, data.size(), where));
  }
  // The tensors must tile the data exactly: no overlap, no gap, nothing after the last one.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < covered)
      fail(where, "tensors " + printable(previous->name) + " and " + printable(e.name) + " overlap in the data (bytes " +
                      std::to_string(e.begin) + " .. " + std::to_string(covered) + ")");
    if (e.begin > covered)
      fail(where, "bytes " + std::to_string(covered) + " .. " + std::to_string(e.begin) +
                      " of the data belong to no tensor");
    covered = e.end;
    previous = &e;
  }
  if (covered != data.size())
    fail(where, std::to_string(data.size() - covered) + " bytes of data after the last tensor belong to no tensor");

  for (Entry& e : entries) {
    NamedTensor t;
    t.name = std::move(e.name);
    t.shape = std::move(e.shape);
    t.values.resize((e.end - e.begin) / sizeof(float));
    if (!t.values.empty()) std::memcpy(t.values.data(), data.data() + e.begin, e.end - e.begin);
    content.tensors.push_back(std::move(t));
  }
  return content;
}

SafetensorsContent read_safetensors(const std::filesystem::path& path) {
  return decode_safetensors(read_regular_file(path, kMaxSafetensorsFileBytes, "safetensors file"), path.string());
}

}  // namespace sinklab
