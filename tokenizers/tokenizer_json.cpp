#include "tokenizers/tokenizer_json.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "tokenizers/tokenizer_error.h"
#include "tokenizers/utf8.h"

namespace sinklab::tok {

namespace {

using nlohmann::json;

// Reads values out of one file's JSON, naming the file and the path of the key in every error.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw TokenizerError(file_ + ": " + (where.empty() ? "" : where + ": ") + what);
  }

  const json& object(const json& j, const std::string& where) const {
    if (!j.is_object()) fail(where, "expected a JSON object, found " + std::string(j.type_name()));
    return j;
  }
  const json& array(const json& j, const std::string& where) const {
    if (!j.is_array()) fail(where, "expected a JSON array, found " + std::string(j.type_name()));
    return j;
  }
  // The member `key` of object `j` (at `where`); a missing key fails.
  const json& member(const json& j, const char* key, const std::string& where) const {
    auto it = object(j, where).find(key);
    if (it == j.end()) fail(where, "missing key \"" + std::string(key) + "\"");
    return *it;
  }
  const json* optional_member(const json& j, const char* key) const {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
  std::string string(const json& j, const std::string& where) const {
    if (!j.is_string()) fail(where, "expected a string, found " + std::string(j.type_name()));
    return j.get<std::string>();
  }
  std::string string_member(const json& j, const char* key, const std::string& where) const {
    return string(member(j, key, where), where + "." + key);
  }
  bool bool_member(const json& j, const char* key, bool fallback, const std::string& where) const {
    const json* v = optional_member(j, key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(where + "." + key, "expected true or false, found " + std::string(v->type_name()));
    return v->get<bool>();
  }
  int64_t integer(const json& j, int64_t lo, int64_t hi, const std::string& where) const {
    if (!j.is_number_integer()) fail(where, "expected an integer, found " + std::string(j.type_name()));
    const bool is_unsigned = j.is_number_unsigned();
    if (is_unsigned && j.get<uint64_t>() > static_cast<uint64_t>(hi)) fail(where, "out of range");
    const int64_t v = is_unsigned ? static_cast<int64_t>(j.get<uint64_t>()) : j.get<int64_t>();
    if (v < lo || v > hi)
      fail(where,
           "value " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }
  std::string type_of(const json& j, const std::string& where) const { return string_member(j, "type", where); }

  // A Split/Replace pattern: {"String": "..."} (literal) or {"Regex": "..."}.
  void pattern(const json& j, const std::string& where, std::string& literal, std::unique_ptr<Regex>& regex) const {
    object(j, where);
    if (const json* s = optional_member(j, "String")) {
      literal = string(*s, where + ".String");
      if (literal.empty()) fail(where + ".String", "an empty pattern is not supported");
      literal = to_valid_utf8(literal);
    } else if (const json* r = optional_member(j, "Regex")) {
      const std::string source = string(*r, where + ".Regex");
      try {
        regex = std::make_unique<Regex>(source);
      } catch (const std::invalid_argument& e) {
        fail(where + ".Regex", std::string("invalid regular expression: ") + e.what());
      }
    } else {
      fail(where, "expected \"String\" or \"Regex\"");
    }
  }

 private:
  std::string file_;
};

constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max() - 1;
// Real files nest one Sequence; a bound keeps the recursive reader off the end of the stack.
constexpr int kMaxNesting = 32;

std::unique_ptr<Normalizer> read_normalizer(const Reader& r, const json& j, const std::string& where, int depth = 0) {
  if (j.is_null()) return nullptr;
  if (depth > kMaxNesting) r.fail(where, "Sequences nested deeper than " + std::to_string(kMaxNesting));
  const std::string type = r.type_of(j, where);
  if (type == "NFC") return make_unicode_normalizer(UnicodeForm::NFC);
  if (type == "NFD") return make_unicode_normalizer(UnicodeForm::NFD);
  if (type == "NFKC") return make_unicode_normalizer(UnicodeForm::NFKC);
  if (type == "NFKD") return make_unicode_normalizer(UnicodeForm::NFKD);
  if (type == "Prepend") return make_prepend(to_valid_utf8(r.string_member(j, "prepend", where)));
  if (type == "Replace") {
    std::string literal;
    std::unique_ptr<Regex> regex;
    r.pattern(r.member(j, "pattern", where), where + ".pattern", literal, regex);
    return make_replace(std::move(literal), std::move(regex), to_valid_utf8(r.string_member(j, "content", where)));
  }
  if (type == "Sequence") {
    const json& list = r.array(r.member(j, "normalizers", where), where + ".normalizers");
    std::vector<std::unique_ptr<Normalizer>> steps;
    for (size_t i = 0; i < list.size(); ++i) {
      auto step = read_normalizer(r, list[i], where + ".normalizers[" + std::to_string(i) + "]", depth + 1);
      if (step) steps.push_back(std::move(step));
    }
    return make_sequence(std::move(steps));
  }
  r.fail(where + ".type",
         "normalizer \"" + type + "\" is not supported (supported: NFC, NFD, NFKC, NFKD, Prepend, Replace, Sequence)");
}

PrependScheme read_prepend_scheme(const Reader& r, const json& j, const std::string& where) {
  PrependScheme scheme = PrependScheme::Always;
  if (const json* s = r.optional_member(j, "prepend_scheme")) {
    const std::string name = r.string(*s, where + ".prepend_scheme");
    if (name == "always") scheme = PrependScheme::Always;
    else if (name == "never") scheme = PrependScheme::Never;
    else if (name == "first") scheme = PrependScheme::First;
    else r.fail(where + ".prepend_scheme", "\"" + name + "\" is not one of always, never, first");
  }
  // The older form: add_prefix_space false means never.
  if (!r.bool_member(j, "add_prefix_space", true, where)) scheme = PrependScheme::Never;
  return scheme;
}

std::string read_replacement(const Reader& r, const json& j, const std::string& where) {
  std::string replacement = to_valid_utf8(r.string_member(j, "replacement", where));
  size_t i = 0;
  if (replacement.empty() || (next_code_point(replacement, i), i != replacement.size()))
    r.fail(where + ".replacement", "expected exactly one character");
  return replacement;
}

std::unique_ptr<PreTokenizer> read_pre_tokenizer(const Reader& r, const json& j, const std::string& where,
                                                 int depth = 0) {
  if (j.is_null()) return nullptr;
  if (depth > kMaxNesting) r.fail(where, "Sequences nested deeper than " + std::to_string(kMaxNesting));
  const std::string type = r.type_of(j, where);
  if (type == "ByteLevel") {
    if (!r.optional_member(j, "add_prefix_space")) r.fail(where, "missing key \"add_prefix_space\"");
    return make_byte_level_pre_tokenizer(r.bool_member(j, "add_prefix_space", false, where),
                                         r.bool_member(j, "use_regex", true, where));
  }
  if (type == "Split") {
    std::string literal;
    std::unique_ptr<Regex> regex;
    r.pattern(r.member(j, "pattern", where), where + ".pattern", literal, regex);
    const std::string name = r.string_member(j, "behavior", where);
    SplitBehavior behavior;
    if (name == "Removed") behavior = SplitBehavior::Removed;
    else if (name == "Isolated") behavior = SplitBehavior::Isolated;
    else if (name == "MergedWithPrevious") behavior = SplitBehavior::MergedWithPrevious;
    else if (name == "MergedWithNext") behavior = SplitBehavior::MergedWithNext;
    else if (name == "Contiguous") behavior = SplitBehavior::Contiguous;
    else r.fail(where + ".behavior", "\"" + name + "\" is not a split behavior");
    return make_split(std::move(literal), std::move(regex), behavior, r.bool_member(j, "invert", false, where));
  }
  if (type == "Metaspace") {
    return make_metaspace(read_replacement(r, j, where), read_prepend_scheme(r, j, where),
                          r.bool_member(j, "split", true, where));
  }
  if (type == "Sequence") {
    const json& list = r.array(r.member(j, "pretokenizers", where), where + ".pretokenizers");
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    for (size_t i = 0; i < list.size(); ++i) {
      auto step = read_pre_tokenizer(r, list[i], where + ".pretokenizers[" + std::to_string(i) + "]", depth + 1);
      if (step) steps.push_back(std::move(step));
    }
    return make_pre_tokenizer_sequence(std::move(steps));
  }
  r.fail(where + ".type",
         "pre-tokenizer \"" + type + "\" is not supported (supported: ByteLevel, Split, Metaspace, Sequence)");
}

std::unique_ptr<Decoder> read_decoder(const Reader& r, const json& j, const std::string& where, int depth = 0) {
  if (j.is_null()) return nullptr;
  if (depth > kMaxNesting) r.fail(where, "Sequences nested deeper than " + std::to_string(kMaxNesting));
  const std::string type = r.type_of(j, where);
  if (type == "ByteLevel") return make_byte_level_decoder();
  if (type == "Metaspace")
    return make_metaspace_decoder(read_replacement(r, j, where), read_prepend_scheme(r, j, where));
  if (type == "Replace") {
    std::string literal;
    std::unique_ptr<Regex> regex;
    r.pattern(r.member(j, "pattern", where), where + ".pattern", literal, regex);
    return make_replace_decoder(std::move(literal), std::move(regex),
                                to_valid_utf8(r.string_member(j, "content", where)));
  }
  if (type == "ByteFallback") return make_byte_fallback_decoder();
  if (type == "Fuse") return make_fuse_decoder();
  if (type == "Strip") {
    const std::string content = to_valid_utf8(r.string_member(j, "content", where));
    size_t i = 0;
    if (content.empty() || (next_code_point(content, i), i != content.size()))
      r.fail(where + ".content", "expected exactly one character");
    i = 0;
    const char32_t c = next_code_point(content, i);
    const auto count = [&](const char* key) {
      return static_cast<size_t>(r.integer(r.member(j, key, where), 0, 1 << 20, where + "." + key));
    };
    return make_strip_decoder(c, count("start"), count("stop"));
  }
  if (type == "Sequence") {
    const json& list = r.array(r.member(j, "decoders", where), where + ".decoders");
    std::vector<std::unique_ptr<Decoder>> steps;
    for (size_t i = 0; i < list.size(); ++i) {
      auto step = read_decoder(r, list[i], where + ".decoders[" + std::to_string(i) + "]", depth + 1);
      if (step) steps.push_back(std::move(step));
    }
    return make_decoder_sequence(std::move(steps));
  }
  r.fail(where + ".type",
         "decoder \"" + type +
             "\" is not supported (supported: ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip, Sequence)");
}

std::unique_ptr<BpeModel> read_model(const Reader& r, const json& j, const std::string& where) {
  r.object(j, where);
  const json* type = r.optional_member(j, "type");
  if (type) {
    const std::string name = r.string(*type, where + ".type");
    if (name != "BPE") r.fail(where + ".type", "model \"" + name + "\" is not supported (supported: BPE)");
  }
  if (const json* d = r.optional_member(j, "dropout")) {
    if (!d->is_number() || d->get<double>() != 0.0)
      r.fail(where + ".dropout", "BPE dropout is random; only null or 0 is supported");
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (const json* v = r.optional_member(j, key); v && !(v->is_string() && v->get<std::string>().empty()))
      r.fail(where + "." + key, "is not supported (the supported families have none)");
  }
  const json& vocab_json = r.object(r.member(j, "vocab", where), where + ".vocab");
  std::unordered_map<std::string, int32_t> vocab;
  vocab.reserve(vocab_json.size());
  std::unordered_set<int32_t> ids;
  for (auto it = vocab_json.begin(); it != vocab_json.end(); ++it) {
    const std::string at = where + ".vocab[\"" + it.key() + "\"]";
    const auto id = static_cast<int32_t>(r.integer(it.value(), 0, kMaxId, at));
    if (!ids.insert(id).second) r.fail(at, "id " + std::to_string(id) + " is given to two tokens");
    vocab.emplace(to_valid_utf8(it.key()), id);
  }
  const json& merges_json = r.array(r.member(j, "merges", where), where + ".merges");
  std::vector<BpeMerge> merges;
  merges.reserve(merges_json.size());
  const auto id_of = [&](const std::string& token, const std::string& at) {
    auto it = vocab.find(token);
    if (it == vocab.end()) r.fail(at, "token \"" + token + "\" is not in the vocabulary");
    return it->second;
  };
  for (size_t i = 0; i < merges_json.size(); ++i) {
    const std::string at = where + ".merges[" + std::to_string(i) + "]";
    const json& m = merges_json[i];
    std::string a, b;
    if (m.is_string()) {
      const std::string line = m.get<std::string>();
      const size_t space = line.find(' ');
      if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
        r.fail(at, "expected two tokens separated by one space, found \"" + line + "\"");
      a = line.substr(0, space);
      b = line.substr(space + 1);
    } else if (m.is_array() && m.size() == 2) {
      a = r.string(m[0], at + "[0]");
      b = r.string(m[1], at + "[1]");
    } else {
      r.fail(at, "expected \"a b\" or [\"a\", \"b\"]");
    }
    a = to_valid_utf8(a);
    b = to_valid_utf8(b);
    merges.push_back({id_of(a, at), id_of(b, at), id_of(a + b, at)});
  }
  BpeOptions options;
  if (const json* unk = r.optional_member(j, "unk_token")) {
    const std::string token = to_valid_utf8(r.string(*unk, where + ".unk_token"));
    options.unk_id = id_of(token, where + ".unk_token");
  }
  options.fuse_unk = r.bool_member(j, "fuse_unk", false, where);
  options.byte_fallback = r.bool_member(j, "byte_fallback", false, where);
  options.ignore_merges = r.bool_member(j, "ignore_merges", false, where);
  return std::make_unique<BpeModel>(std::move(vocab), merges, options);
}

// The special tokens that a post-processor puts around the sequence.
void read_post_processor(const Reader& r, const json& j, const std::string& where, PostProcessor& out, int depth = 0) {
  if (j.is_null()) return;
  if (depth > kMaxNesting) r.fail(where, "Sequences nested deeper than " + std::to_string(kMaxNesting));
  const std::string type = r.type_of(j, where);
  std::vector<int32_t> prefix, suffix;
  if (type == "ByteLevel") return;
  if (type == "Sequence") {
    const json& list = r.array(r.member(j, "processors", where), where + ".processors");
    for (size_t i = 0; i < list.size(); ++i)
      read_post_processor(r, list[i], where + ".processors[" + std::to_string(i) + "]", out, depth + 1);
    return;
  }
  if (type == "TemplateProcessing") {
    const json& single = r.array(r.member(j, "single", where), where + ".single");
    const json& specials = r.member(j, "special_tokens", where);
    r.object(specials, where + ".special_tokens");
    int sequences = 0;
    for (size_t i = 0; i < single.size(); ++i) {
      const std::string at = where + ".single[" + std::to_string(i) + "]";
      r.object(single[i], at);
      if (const json* s = r.optional_member(single[i], "Sequence")) {
        const std::string id = r.string_member(*s, "id", at + ".Sequence");
        if (id != "A")
          r.fail(at + ".Sequence.id", "the single template can only hold sequence A, found \"" + id + "\"");
        ++sequences;
      } else if (const json* t = r.optional_member(single[i], "SpecialToken")) {
        const std::string name = r.string_member(*t, "id", at + ".SpecialToken");
        auto it = specials.find(name);
        if (it == specials.end()) r.fail(at + ".SpecialToken.id", "\"" + name + "\" is not in special_tokens");
        const std::string sat = where + ".special_tokens[\"" + name + "\"].ids";
        const json& list = r.array(r.member(*it, "ids", where + ".special_tokens[\"" + name + "\"]"), sat);
        for (size_t k = 0; k < list.size(); ++k)
          (sequences ? suffix : prefix)
              .push_back(static_cast<int32_t>(r.integer(list[k], 0, kMaxId, sat + "[" + std::to_string(k) + "]")));
      } else {
        r.fail(at, "expected \"Sequence\" or \"SpecialToken\"");
      }
    }
    if (sequences != 1) r.fail(where + ".single", "the template must hold $A exactly once");
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    const auto special = [&](const char* key) {
      const json& pair = r.array(r.member(j, key, where), where + "." + key);
      if (pair.size() != 2) r.fail(where + "." + key, "expected [token, id]");
      return static_cast<int32_t>(r.integer(pair[1], 0, kMaxId, where + "." + key + "[1]"));
    };
    prefix.push_back(special("cls"));
    suffix.push_back(special("sep"));
  } else {
    r.fail(where + ".type", "post-processor \"" + type +
                                "\" is not supported (supported: TemplateProcessing, ByteLevel, RobertaProcessing, "
                                "BertProcessing, Sequence)");
  }
  out.prefix.insert(out.prefix.begin(), prefix.begin(), prefix.end());
  out.suffix.insert(out.suffix.end(), suffix.begin(), suffix.end());
  out.has_template = true;
}

json parse(std::string_view text, const std::string& label) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number such as 1e999
    throw TokenizerError(label + ": not valid JSON: " + e.what());
  }
}

}  // namespace

TokenizerParts read_tokenizer_json(std::string_view text, const std::string& label, std::string_view config_text,
                                   const std::string& config_label) {
  const Reader r(label);
  const json j = parse(text, label);
  r.object(j, "");
  for (const char* key : {"truncation", "padding"})
    if (r.optional_member(j, key)) r.fail(key, "is not supported (sinklab encodes whole texts; expected null)");

  TokenizerParts parts;
  parts.model = read_model(r, r.member(j, "model", ""), "model");
  parts.normalizer = j.contains("normalizer") ? read_normalizer(r, j["normalizer"], "normalizer") : nullptr;
  parts.pre_tokenizer =
      j.contains("pre_tokenizer") ? read_pre_tokenizer(r, j["pre_tokenizer"], "pre_tokenizer") : nullptr;
  parts.decoder = j.contains("decoder") ? read_decoder(r, j["decoder"], "decoder") : nullptr;

  if (const json* added = r.optional_member(j, "added_tokens")) {
    r.array(*added, "added_tokens");
    std::unordered_map<int32_t, std::string> by_id;
    std::unordered_set<std::string> contents;
    for (size_t i = 0; i < added->size(); ++i) {
      const std::string at = "added_tokens[" + std::to_string(i) + "]";
      const json& t = r.object((*added)[i], at);
      AddedToken token;
      token.id = static_cast<int32_t>(r.integer(r.member(t, "id", at), 0, kMaxId, at + ".id"));
      token.content = to_valid_utf8(r.string_member(t, "content", at));
      token.special = r.bool_member(t, "special", false, at);
      token.single_word = r.bool_member(t, "single_word", false, at);
      token.lstrip = r.bool_member(t, "lstrip", false, at);
      token.rstrip = r.bool_member(t, "rstrip", false, at);
      token.normalized = r.bool_member(t, "normalized", !token.special, at);
      if (token.content.empty()) r.fail(at + ".content", "an added token cannot be empty");
      if (!contents.insert(token.content).second) r.fail(at, "\"" + token.content + "\" is listed twice");
      if (auto [it, fresh] = by_id.emplace(token.id, token.content); !fresh)
        r.fail(at + ".id", "id " + std::to_string(token.id) + " is also given to \"" + it->second + "\"");
      if (auto model_id = parts.model->token_to_id(token.content); model_id && *model_id != token.id)
        r.fail(at + ".id", "\"" + token.content + "\" has id " + std::to_string(token.id) +
                               " but the vocabulary gives it " + std::to_string(*model_id));
      if (const std::string* other = parts.model->id_to_token(token.id); other && *other != token.content)
        r.fail(at + ".id", "id " + std::to_string(token.id) + " is \"" + *other + "\" in the vocabulary, not \"" +
                               token.content + "\"");
      parts.added_tokens.push_back(std::move(token));
    }
  }
  const auto token_id = [&](const std::string& content) -> std::optional<int32_t> {
    for (const AddedToken& t : parts.added_tokens)
      if (t.content == content) return t.id;
    return parts.model->token_to_id(content);
  };
  if (j.contains("post_processor")) read_post_processor(r, j["post_processor"], "post_processor", parts.post_processor);
  const auto known = [&](int32_t id) {
    for (const AddedToken& t : parts.added_tokens)
      if (t.id == id) return true;
    return parts.model->id_to_token(id) != nullptr;
  };
  for (const auto* list : {&parts.post_processor.prefix, &parts.post_processor.suffix})
    for (const int32_t id : *list)
      if (!known(id)) r.fail("post_processor", "special token id " + std::to_string(id) + " is not in the vocabulary");

  // tokenizer_config.json: the BOS/EOS tokens by name, and whether to add them when tokenizer.json
  // has no template that decides.
  std::optional<int32_t> config_bos, config_eos;
  bool config_names_bos = false, config_names_eos = false, add_bos = false, add_eos = false;
  if (!config_text.empty()) {
    const Reader c(config_label);
    const json config = parse(config_text, config_label);
    c.object(config, "");
    const auto special = [&](const char* key, bool& named) -> std::optional<int32_t> {
      auto it = config.find(key);
      if (it == config.end()) return std::nullopt;
      named = true;
      if (it->is_null()) return std::nullopt;
      const std::string content = it->is_object() ? c.string_member(*it, "content", key) : c.string(*it, key);
      auto id = token_id(to_valid_utf8(content));
      if (!id) c.fail(key, "\"" + content + "\" is not a token of " + label);
      return id;
    };
    config_bos = special("bos_token", config_names_bos);
    config_eos = special("eos_token", config_names_eos);
    add_bos = c.bool_member(config, "add_bos_token", false, "");
    add_eos = c.bool_member(config, "add_eos_token", false, "");
    if (!parts.post_processor.has_template) {
      if (add_bos && !config_bos) c.fail("add_bos_token", "is true but bos_token names no token");
      if (add_eos && !config_eos) c.fail("add_eos_token", "is true but eos_token names no token");
      if (add_bos) parts.post_processor.prefix.insert(parts.post_processor.prefix.begin(), *config_bos);
      if (add_eos) parts.post_processor.suffix.push_back(*config_eos);
    }
  }
  const PostProcessor& post = parts.post_processor;
  parts.bos_id = config_names_bos      ? config_bos
                 : post.prefix.empty() ? std::nullopt
                                       : std::optional(post.prefix.front());
  parts.eos_id = config_names_eos ? config_eos : post.suffix.empty() ? std::nullopt : std::optional(post.suffix.back());

  if (parts.pre_tokenizer && parts.pre_tokenizer->byte_level()) parts.description = "byte-level BPE";
  else if (parts.model->byte_fallback()) parts.description = "SentencePiece-style BPE with byte fallback";
  else parts.description = "BPE";
  return parts;
}

}  // namespace sinklab::tok
