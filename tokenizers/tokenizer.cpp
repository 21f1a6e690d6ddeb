#include "tokenizers/tokenizer.h"

#include <unordered_map>

#include "core/io/file_read.h"
#include "tokenizers/tokenizer_json.h"
#include "tokenizers/utf8.h"

namespace sinklab {

namespace {

// tokenizer.json of a large vocabulary is ~10-50 MB (Qwen3's 11 MB); the cap refuses a wrong file
// (a weights file, a device) before it is read whole.
constexpr uint64_t kMaxTokenizerJsonBytes = 256ull << 20;
constexpr uint64_t kMaxConfigBytes = 64ull << 20;

}  // namespace

struct Tokenizer::Impl {
  tok::TokenizerParts parts;
  tok::AddedTokenMatcher raw_matcher, normalized_matcher;
  std::unordered_map<int32_t, const tok::AddedToken*> added_by_id;
  std::unordered_map<std::string, int32_t> added_by_content;
  int32_t vocab_size = 0;
  std::string source;

  Impl(tok::TokenizerParts p, std::string label) : parts(std::move(p)), source(std::move(label)) {
    vocab_size = parts.model->max_id() + 1;
    for (const tok::AddedToken& t : parts.added_tokens) {
      added_by_id[t.id] = &t;
      added_by_content[t.content] = t.id;
      vocab_size = std::max(vocab_size, t.id + 1);
      if (t.normalized && parts.normalizer) {
        // Matched as it reads after normalization, in the normalized text.
        std::string pattern = t.content;
        parts.normalizer->normalize(pattern);
        normalized_matcher.add(std::move(pattern), &t);
      } else {
        raw_matcher.add(t.content, &t);
      }
    }
  }
};

Tokenizer Tokenizer::from_json(std::string_view tokenizer_json, std::string_view config_json,
                               const std::string& label) {
  return Tokenizer(std::make_shared<const Impl>(
      tok::read_tokenizer_json(tokenizer_json, label, config_json, "tokenizer_config.json"), label));
}

Tokenizer Tokenizer::from_path(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path file = path, config;
  if (std::filesystem::is_directory(path, ec)) {
    file = path / "tokenizer.json";
    if (!std::filesystem::exists(file, ec)) throw TokenizerError(path.string() + ": no tokenizer.json in this folder");
  } else if (!std::filesystem::exists(path, ec)) {
    throw TokenizerError(path.string() + ": no such file or folder");
  }
  config = file.parent_path() / "tokenizer_config.json";
  std::string text, config_text;
  try {
    text = read_regular_file(file, kMaxTokenizerJsonBytes, "tokenizer.json");
    if (std::filesystem::exists(config, ec))
      config_text = read_regular_file(config, kMaxConfigBytes, "tokenizer_config.json");
  } catch (const FileReadError& e) {
    throw TokenizerError(e.what());
  }
  if (config_text.empty()) config.clear();
  return Tokenizer(std::make_shared<const Impl>(
      tok::read_tokenizer_json(text, file.string(), config_text, config.string()), file.string()));
}

std::vector<int32_t> Tokenizer::encode(std::string_view input, bool add_special_tokens) const {
  const Impl& m = *impl_;
  const std::string text = tok::to_valid_utf8(input);
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  std::vector<tok::Piece> pieces;
  const auto encode_words = [&](std::string piece, bool at_start) {
    pieces.clear();
    pieces.push_back({std::move(piece), at_start});
    if (m.parts.pre_tokenizer) m.parts.pre_tokenizer->pre_tokenize(pieces);
    for (const tok::Piece& p : pieces) m.parts.model->encode_word(p.text, ids);
  };
  // Added tokens that are matched in the raw text first; the normalizer then runs on the text
  // between them, and normalized added tokens are matched in its output.
  for (const tok::Segment& seg : m.raw_matcher.split(text)) {
    if (seg.token_id >= 0) {
      ids.push_back(seg.token_id);
      continue;
    }
    std::string piece = text.substr(seg.begin, seg.end - seg.begin);
    const bool at_start = seg.begin == 0;
    if (m.parts.normalizer) m.parts.normalizer->normalize(piece);
    if (piece.empty()) continue;
    if (m.normalized_matcher.empty()) {
      encode_words(std::move(piece), at_start);
      continue;
    }
    for (const tok::Segment& sub : m.normalized_matcher.split(piece)) {
      if (sub.token_id >= 0) ids.push_back(sub.token_id);
      else encode_words(piece.substr(sub.begin, sub.end - sub.begin), at_start && sub.begin == 0);
    }
  }
  if (add_special_tokens) m.parts.post_processor.apply(ids);
  return ids;
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special_tokens) const {
  const Impl& m = *impl_;
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const int32_t id : ids) {
    if (auto it = m.added_by_id.find(id); it != m.added_by_id.end()) {
      if (!(skip_special_tokens && it->second->special)) tokens.push_back(it->second->content);
    } else if (const std::string* token = m.parts.model->id_to_token(id)) {
      tokens.push_back(*token);
    } else {
      throw TokenizerError(m.source + ": decode: id " + std::to_string(id) + " is not a token (vocabulary size " +
                           std::to_string(m.vocab_size) + ")");
    }
  }
  std::string out;
  if (!m.parts.decoder) {
    for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
    return out;
  }
  for (const std::string& s : m.parts.decoder->decode_chain(std::move(tokens))) out += s;
  return out;
}

int32_t Tokenizer::vocab_size() const { return impl_->vocab_size; }

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  if (auto it = impl_->added_by_content.find(std::string(token)); it != impl_->added_by_content.end())
    return it->second;
  return impl_->parts.model->token_to_id(token);
}

std::string Tokenizer::id_to_token(int32_t id) const {
  if (auto it = impl_->added_by_id.find(id); it != impl_->added_by_id.end()) return it->second->content;
  if (const std::string* token = impl_->parts.model->id_to_token(id)) return *token;
  throw TokenizerError(impl_->source + ": id_to_token: id " + std::to_string(id) + " is not a token (vocabulary size " +
                       std::to_string(impl_->vocab_size) + ")");
}

std::optional<int32_t> Tokenizer::bos_id() const { return impl_->parts.bos_id; }
std::optional<int32_t> Tokenizer::eos_id() const { return impl_->parts.eos_id; }

const std::string& Tokenizer::source() const { return impl_->source; }

std::string Tokenizer::description() const {
  return impl_->parts.description + ", " + std::to_string(impl_->vocab_size) + " tokens";
}

}  // namespace sinklab
