#include "run_files/safetensors_file.h"

#include <algorithm>
#include <bit>
#include <cmath>
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

// Bytes per element of the dtypes the safetensors format defines; 0 for a name it does not.
uint64_t dtype_bytes(std::string_view dtype) {
  static constexpr std::pair<std::string_view, uint64_t> kSizes[] = {
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2},
      {"I8", 1},  {"U64", 8}, {"U32", 4}, {"U16", 2},  {"U8", 1},   {"BOOL", 1}};
  for (const auto& [name, bytes] : kSizes)
    if (name == dtype) return bytes;
  return 0;
}

// Which dtypes a reader takes: decode_safetensors only F32; SafetensorsReader any (it converts
// F16 / BF16 and refuses the others only for a tensor that is read).
enum class DtypeRule { f32_only, any_defined };

using Entry = SafetensorsEntry;

Entry parse_entry(const std::string& name, const Json& value, uint64_t data_bytes, DtypeRule rule,
                  const std::string& where) {
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
  if (rule == DtypeRule::f32_only && dtype.get<std::string>() != "F32")
    fail(where, tensor + ": dtype " + printable(dtype.get<std::string>()) + " is not supported (only F32, float32)");
  const uint64_t element_bytes = dtype_bytes(dtype.get<std::string>());
  if (element_bytes == 0)
    fail(where, tensor + ": dtype " + printable(dtype.get<std::string>()) + " is not a safetensors dtype");

  Entry e;
  e.name = name;
  e.dtype = dtype.get<std::string>();
  const Json& shape = field("shape");
  if (!shape.is_array()) fail(where, tensor + ": shape is not an array");
  for (const Json& d : shape) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      fail(where, tensor + ": shape " + printable(shape.dump()) + " holds something other than a non-negative integer");
    e.shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
  }
  const Json& offsets = field("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned())
    fail(where, tensor + ": data_offsets " + printable(offsets.dump()) + " is not [begin, end] with integers >= 0");
  e.begin = offsets[0].get<uint64_t>();
  e.end = offsets[1].get<uint64_t>();
  const std::string span = "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  if (e.begin > e.end) fail(where, tensor + ": " + span + " end before they begin");
  if (e.end > data_bytes)
    fail(where, tensor + ": " + span + " reach past the data, which has " + std::to_string(data_bytes) + " bytes");
  const auto n = element_count(e.shape);
  if (!n) fail(where, tensor + ": shape " + shape_text(e.shape) + " is too large (its byte size overflows 64 bits)");
  if (e.end - e.begin != *n * element_bytes)
    fail(where, tensor + ": shape " + shape_text(e.shape) + " needs " + std::to_string(*n * element_bytes) +
                    " bytes of " + e.dtype + ", but " + span + " hold " + std::to_string(e.end - e.begin));
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

namespace {

// The header's length from the first 8 bytes of a file of `file_bytes` bytes, checked against the file.
uint64_t header_length(std::string_view first_bytes, uint64_t file_bytes, const std::string& where) {
  if (file_bytes < kLengthBytes)
    fail(where, "truncated: " + std::to_string(file_bytes) + " bytes, fewer than the 8-byte header length");
  const uint64_t header_bytes = read_u64_le(first_bytes);
  const uint64_t left = file_bytes - kLengthBytes;
  if (header_bytes > kMaxSafetensorsHeaderBytes)
    fail(where, "header length " + std::to_string(header_bytes) + " is more than the " +
                    std::to_string(kMaxSafetensorsHeaderBytes) + " bytes allowed (not a safetensors file?)");
  if (header_bytes > left)
    fail(where, "truncated header: it announces " + std::to_string(header_bytes) + " bytes, the file has " +
                    std::to_string(left) + " after the length");
  return header_bytes;
}

struct ParsedHeader {
  std::vector<Entry> entries;  // in the order of their data
  SafetensorsMetadata metadata;
};

// The JSON header `text`, followed by `data_bytes` bytes of data, checked for everything but the values.
ParsedHeader parse_header(std::string_view text, uint64_t data_bytes, DtypeRule rule, const std::string& where) {
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

  ParsedHeader parsed;
  std::vector<Entry>& entries = parsed.entries;
  for (const auto& [name, value] : header.items()) {
    if (name == kMetadataKey)
      parsed.metadata = parse_metadata(value, where);
    else
      entries.push_back(parse_entry(name, value, data_bytes, rule, where));
  }
  // The tensors must tile the data exactly: no overlap, no gap, nothing after the last one.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < covered)
      fail(where, "tensors " + printable(previous->name) + " and " + printable(e.name) +
                      " overlap in the data (bytes " + std::to_string(e.begin) + " .. " + std::to_string(covered) +
                      ")");
    if (e.begin > covered)
      fail(where, "bytes " + std::to_string(covered) + " .. " + std::to_string(e.begin) +
                      " of the data belong to no tensor");
    covered = e.end;
    previous = &e;
  }
  if (covered != data_bytes)
    fail(where, std::to_string(data_bytes - covered) + " bytes of data after the last tensor belong to no tensor");
  return parsed;
}

// IEEE half (1 sign, 5 exponent, 10 mantissa bits) to float, subnormals, infinities and NaN included.
float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  uint32_t bits = 0;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 -> 127
  } else {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // subnormal (or zero): m 2^-24
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(bits);
}

// bfloat16 is the upper half of a float32.
float bfloat16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

}  // namespace

SafetensorsContent decode_safetensors(std::string_view bytes, const std::string& where) {
  const uint64_t header_bytes = header_length(bytes, bytes.size(), where);
  const std::string_view data = bytes.substr(kLengthBytes + header_bytes);
  ParsedHeader parsed = parse_header(bytes.substr(kLengthBytes, header_bytes), data.size(), DtypeRule::f32_only, where);

  SafetensorsContent content;
  content.metadata = std::move(parsed.metadata);
  for (Entry& e : parsed.entries) {
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

SafetensorsReader::SafetensorsReader(std::filesystem::path path) : path_(std::move(path)) {
  const std::string where = path_.string();
  const uint64_t file_bytes = regular_file_size(path_, "safetensors file");
  const std::string first = read_file_range(path_, 0, std::min<uint64_t>(file_bytes, kLengthBytes), "safetensors file");
  const uint64_t header_bytes = header_length(first, file_bytes, where);
  data_start_ = kLengthBytes + header_bytes;
  ParsedHeader parsed = parse_header(read_file_range(path_, kLengthBytes, header_bytes, "safetensors file"),
                                     file_bytes - data_start_, DtypeRule::any_defined, where);
  entries_ = std::move(parsed.entries);
  metadata_ = std::move(parsed.metadata);
}

const SafetensorsEntry* SafetensorsReader::find(std::string_view name) const {
  for (const SafetensorsEntry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

NamedTensor SafetensorsReader::read(const std::string& name) const {
  const std::string where = path_.string();
  const SafetensorsEntry* e = find(name);
  if (!e) fail(where, "has no tensor " + printable(name));
  if (e->dtype != "F32" && e->dtype != "F16" && e->dtype != "BF16")
    fail(where,
         "tensor " + printable(name) + ": dtype " + e->dtype + " cannot be read as float32 (F32, F16 or BF16 only)");
  const std::string bytes = read_file_range(path_, data_start_ + e->begin, e->end - e->begin, "safetensors file");
  NamedTensor t{e->name, e->shape, {}};
  if (e->dtype == "F32") {
    t.values.resize(bytes.size() / sizeof(float));
    if (!bytes.empty()) std::memcpy(t.values.data(), bytes.data(), bytes.size());
    return t;
  }
  t.values.resize(bytes.size() / sizeof(uint16_t));
  const bool half = e->dtype == "F16";
  for (size_t i = 0; i < t.values.size(); ++i) {
    uint16_t v = 0;
    std::memcpy(&v, bytes.data() + 2 * i, sizeof v);
    t.values[i] = half ? half_to_float(v) : bfloat16_to_float(v);
  }
  return t;
}

void SafetensorsReader::read_into(const std::string& name, uint64_t begin, uint64_t count, float* out) const {
  const std::string where = path_.string();
  const SafetensorsEntry* e = find(name);
  if (!e) fail(where, "has no tensor " + printable(name));
  if (e->dtype != "F32" && e->dtype != "F16" && e->dtype != "BF16")
    fail(where,
         "tensor " + printable(name) + ": dtype " + e->dtype + " cannot be read as float32 (F32, F16 or BF16 only)");
  const uint64_t width = e->dtype == "F32" ? 4 : 2, elements = (e->end - e->begin) / width;
  if (begin > elements || count > elements - begin)
    fail(where, "tensor " + printable(name) + ": elements [" + std::to_string(begin) + ", " +
                    std::to_string(begin + count) + ") asked for, it has " + std::to_string(elements));
  constexpr uint64_t kPieceElements = uint64_t{1} << 22;  // 16 MB of float32 a read
  for (uint64_t done = 0; done < count;) {
    const uint64_t n = std::min(kPieceElements, count - done);
    const std::string bytes =
        read_file_range(path_, data_start_ + e->begin + (begin + done) * width, n * width, "safetensors file");
    if (width == 4) {
      std::memcpy(out + done, bytes.data(), bytes.size());
    } else {
      const bool half = e->dtype == "F16";
      for (uint64_t i = 0; i < n; ++i) {
        uint16_t v = 0;
        std::memcpy(&v, bytes.data() + 2 * i, sizeof v);
        out[done + i] = half ? half_to_float(v) : bfloat16_to_float(v);
      }
    }
    done += n;
  }
}

}  // namespace sinklab
