#include "tokenizers/decoders.h"

#include <optional>

#include "tokenizers/byte_level.h"
#include "tokenizers/normalizers.h"
#include "tokenizers/utf8.h"

namespace sinklab::tok {

namespace {

class ByteLevelDecoder final : public Decoder {
 public:
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    std::string bytes;
    for (const std::string& token : tokens) {
      std::string spelled;
      bool all = true;
      for (size_t i = 0; i < token.size() && all;) {
        const auto b = char_to_byte(next_code_point(token, i));
        if (b) spelled.push_back(static_cast<char>(*b));
        else all = false;
      }
      bytes += all ? spelled : token;
    }
    return {to_valid_utf8(bytes)};
  }
};

class MetaspaceDecoder final : public Decoder {
 public:
  MetaspaceDecoder(std::string replacement, PrependScheme scheme)
      : replacement_(std::move(replacement)), scheme_(scheme) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      const bool drop = i == 0 && scheme_ != PrependScheme::Never;
      tokens[i] = replace_all(tokens[i], replacement_, nullptr, drop ? "" : " ");
    }
    return tokens;
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
};

class ReplaceDecoder final : public Decoder {
 public:
  ReplaceDecoder(std::string literal, std::unique_ptr<Regex> regex, std::string content)
      : literal_(std::move(literal)), regex_(std::move(regex)), content_(std::move(content)) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (std::string& t : tokens) t = replace_all(t, literal_, regex_.get(), content_);
    return tokens;
  }

 private:
  std::string literal_;
  std::unique_ptr<Regex> regex_;
  std::string content_;
};

std::optional<unsigned char> byte_token(const std::string& t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return std::nullopt;
  unsigned value = 0;
  for (int k = 3; k < 5; ++k) {
    const char c = t[k];
    value <<= 4;
    if (c >= '0' && c <= '9') value |= static_cast<unsigned>(c - '0');
    else if (c >= 'A' && c <= 'F') value |= static_cast<unsigned>(c - 'A' + 10);
    else if (c >= 'a' && c <= 'f') value |= static_cast<unsigned>(c - 'a' + 10);
    else return std::nullopt;
  }
  return static_cast<unsigned char>(value);
}

class ByteFallbackDecoder final : public Decoder {
 public:
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    std::vector<std::string> out;
    std::string run;
    size_t run_tokens = 0;
    const auto flush = [&] {
      if (run_tokens == 0) return;
      if (to_valid_utf8(run) == run) {
        out.push_back(run);
      } else {
        for (size_t k = 0; k < run_tokens; ++k) out.emplace_back("\xEF\xBF\xBD");
      }
      run.clear();
      run_tokens = 0;
    };
    for (std::string& t : tokens) {
      if (auto b = byte_token(t)) {
        run.push_back(static_cast<char>(*b));
        ++run_tokens;
      } else {
        flush();
        out.push_back(std::move(t));
      }
    }
    flush();
    return out;
  }
};

class FuseDecoder final : public Decoder {
 public:
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    std::string all;
    for (const std::string& t : tokens) all += t;
    return {all};
  }
};

class StripDecoder final : public Decoder {
 public:
  StripDecoder(char32_t content, size_t start, size_t stop) : content_(content), start_(start), stop_(stop) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (std::string& t : tokens) {
      std::vector<size_t> bounds;  // byte offset of each character, and the end
      for (size_t i = 0; i < t.size();) {
        bounds.push_back(i);
        next_code_point(t, i);
      }
      const size_t n = bounds.size();
      bounds.push_back(t.size());
      const auto char_at = [&](size_t k) {
        size_t i = bounds[k];
        return next_code_point(t, i);
      };
      size_t first = 0;
      while (first < std::min(start_, n) && char_at(first) == content_) ++first;
      size_t last = n;
      while (n - last < stop_ && last > first && char_at(last - 1) == content_) --last;
      t = t.substr(bounds[first], bounds[last] - bounds[first]);
    }
    return tokens;
  }

 private:
  char32_t content_;
  size_t start_, stop_;
};

class Sequence final : public Decoder {
 public:
  explicit Sequence(std::vector<std::unique_ptr<Decoder>> steps) : steps_(std::move(steps)) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (const auto& step : steps_) tokens = step->decode_chain(std::move(tokens));
    return tokens;
  }

 private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

}  // namespace

std::unique_ptr<Decoder> make_byte_level_decoder() { return std::make_unique<ByteLevelDecoder>(); }
std::unique_ptr<Decoder> make_metaspace_decoder(std::string replacement, PrependScheme scheme) {
  return std::make_unique<MetaspaceDecoder>(std::move(replacement), scheme);
}
std::unique_ptr<Decoder> make_replace_decoder(std::string literal, std::unique_ptr<Regex> regex, std::string content) {
  return std::make_unique<ReplaceDecoder>(std::move(literal), std::move(regex), std::move(content));
}
std::unique_ptr<Decoder> make_byte_fallback_decoder() { return std::make_unique<ByteFallbackDecoder>(); }
std::unique_ptr<Decoder> make_fuse_decoder() { return std::make_unique<FuseDecoder>(); }
std::unique_ptr<Decoder> make_strip_decoder(char32_t content, size_t start, size_t stop) {
  return std::make_unique<StripDecoder>(content, start, stop);
}
std::unique_ptr<Decoder> make_decoder_sequence(std::vector<std::unique_ptr<Decoder>> steps) {
  return std::make_unique<Sequence>(std::move(steps));
}

}  // namespace sinklab::tok
