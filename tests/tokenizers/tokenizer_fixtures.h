#pragma once
// The committed tokenizer fixtures (tests/fixtures/tokenizers/, made by tools/tokenizer_fixtures):
// each family's tokenizer.json (gzipped) and tokenizer_config.json, the test texts as raw bytes, and
// the ids and decoded strings of the reference (@huggingface/tokenizers).
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/test_dir.h"
#include "tokenizers/tokenizer.h"

namespace sinklab::testing {

inline const std::filesystem::path kTokenizerFixtures =
    std::filesystem::path(SINKLAB_SOURCE_DIR) / "tests/fixtures/tokenizers";

inline std::string read_binary(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string gunzip(const std::filesystem::path& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path.string());
  std::string out;
  char buffer[1 << 16];
  int n;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  gzclose(f);
  if (n < 0) throw std::runtime_error("corrupt gzip " + path.string());
  return out;
}

inline std::string base64_decode(const std::string& in) {
  std::string out;
  int value = 0, bits = -8;
  for (const char c : in) {
    int d;
    if (c >= 'A' && c <= 'Z') d = c - 'A';
    else if (c >= 'a' && c <= 'z') d = c - 'a' + 26;
    else if (c >= '0' && c <= '9') d = c - '0' + 52;
    else if (c == '+') d = 62;
    else if (c == '/') d = 63;
    else continue;
    value = (value << 6) | d;
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((value >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

struct FamilyFiles {
  std::string tokenizer_json, config_json;
};

// Decompressed once per process: the larger files take ~0.1 s.
inline const FamilyFiles& family_files(const std::string& family) {
  static std::map<std::string, FamilyFiles> cache;
  auto it = cache.find(family);
  if (it == cache.end()) {
    const auto dir = kTokenizerFixtures / family;
    it =
        cache
            .emplace(family, FamilyFiles{gunzip(dir / "tokenizer.json.gz"), read_binary(dir / "tokenizer_config.json")})
            .first;
  }
  return it->second;
}

inline const Tokenizer& family_tokenizer(const std::string& family) {
  static std::map<std::string, Tokenizer> cache;
  auto it = cache.find(family);
  if (it == cache.end()) {
    const FamilyFiles& f = family_files(family);
    it = cache.emplace(family, Tokenizer::from_json(f.tokenizer_json, f.config_json, family + "/tokenizer.json")).first;
  }
  return it->second;
}

// name -> raw bytes of every shared test text.
inline const std::map<std::string, std::string>& fixture_texts() {
  static const std::map<std::string, std::string> texts = [] {
    std::map<std::string, std::string> out;
    for (const auto& t : nlohmann::json::parse(read_binary(kTokenizerFixtures / "texts.json")))
      out[t.at("name").get<std::string>()] = base64_decode(t.at("base64").get<std::string>());
    return out;
  }();
  return texts;
}

inline nlohmann::json expected_for(const std::string& family) {
  return nlohmann::json::parse(read_binary(kTokenizerFixtures / ("expected_" + family + ".json")));
}

}  // namespace sinklab::testing
