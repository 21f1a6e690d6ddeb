#include "tokenizers/pre_tokenizers.h"

#include <algorithm>
#include <utility>

#include "tokenizers/byte_level.h"

namespace sinklab::tok {

namespace {

struct Span {
  size_t begin, end;
  bool is_match;
};

// The pieces of `text` between and at the matches, then grouped as HF's SplitDelimiterBehavior does.
std::vector<std::pair<size_t, size_t>> split_by_matches(const std::vector<std::pair<size_t, size_t>>& matches,
                                                        size_t length, SplitBehavior behavior, bool invert) {
  std::vector<Span> spans;
  size_t prev = 0;
  for (const auto& [b, e] : matches) {
    if (b != prev) spans.push_back({prev, b, invert});
    spans.push_back({b, e, !invert});
    prev = e;
  }
  if (prev != length) spans.push_back({prev, length, invert});

  std::vector<std::pair<size_t, size_t>> out;
  switch (behavior) {
    case SplitBehavior::Removed:
      for (const Span& s : spans)
        if (!s.is_match) out.emplace_back(s.begin, s.end);
      break;
    case SplitBehavior::Isolated:
      for (const Span& s : spans) out.emplace_back(s.begin, s.end);
      break;
    case SplitBehavior::MergedWithPrevious: {
      bool previous_match = false;
      for (const Span& s : spans) {
        if (s.is_match && !previous_match && !out.empty()) out.back().second = s.end;
        else out.emplace_back(s.begin, s.end);
        previous_match = s.is_match;
      }
      break;
    }
    case SplitBehavior::MergedWithNext: {
      bool previous_match = false;
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->is_match && !previous_match && !out.empty()) out.back().first = it->begin;
        else out.emplace_back(it->begin, it->end);
        previous_match = it->is_match;
      }
      std::reverse(out.begin(), out.end());
      break;
    }
    case SplitBehavior::Contiguous: {
      bool previous_match = false;
      for (const Span& s : spans) {
        if (s.is_match == previous_match && !out.empty()) out.back().second = s.end;
        else out.emplace_back(s.begin, s.end);
        previous_match = s.is_match;
      }
      break;
    }
  }
  return out;
}

void literal_matches(const std::string& text, const std::string& literal, std::vector<std::pair<size_t, size_t>>& out) {
  out.clear();
  for (size_t pos = text.find(literal); pos != std::string::npos; pos = text.find(literal, pos + literal.size()))
    out.emplace_back(pos, pos + literal.size());
}

// Splits each piece at the given ranges; only the sub-piece at offset 0 keeps at_start.
template <typename Ranges>
void split_pieces(std::vector<Piece>& pieces, Ranges&& ranges_of) {
  std::vector<Piece> out;
  out.reserve(pieces.size() * 2);
  for (Piece& p : pieces) {
    for (const auto& [b, e] : ranges_of(p.text)) {
      if (e > b) out.push_back({p.text.substr(b, e - b), p.at_start && b == 0});
    }
  }
  pieces = std::move(out);
}

class ByteLevelPreTokenizer final : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space), regex_(use_regex ? std::make_unique<Regex>(kGpt2Pattern) : nullptr) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    if (add_prefix_space_)
      for (Piece& p : pieces)
        if (p.text.empty() || p.text[0] != ' ') p.text.insert(0, " ");
    if (regex_) {
      std::vector<std::pair<size_t, size_t>> matches;
      split_pieces(pieces, [&](const std::string& text) {
        regex_->find_all(text, matches);
        return split_by_matches(matches, text.size(), SplitBehavior::Isolated, false);
      });
    }
    std::vector<Piece> out;
    out.reserve(pieces.size());
    for (Piece& p : pieces)
      if (!p.text.empty()) out.push_back({bytes_to_chars(p.text), p.at_start});
    pieces = std::move(out);
  }
  bool byte_level() const override { return true; }

 private:
  bool add_prefix_space_;
  std::unique_ptr<Regex> regex_;
};

class Split final : public PreTokenizer {
 public:
  Split(std::string literal, std::unique_ptr<Regex> regex, SplitBehavior behavior, bool invert)
      : literal_(std::move(literal)), regex_(std::move(regex)), behavior_(behavior), invert_(invert) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    std::vector<std::pair<size_t, size_t>> matches;
    split_pieces(pieces, [&](const std::string& text) {
      if (regex_) regex_->find_all(text, matches);
      else literal_matches(text, literal_, matches);
      return split_by_matches(matches, text.size(), behavior_, invert_);
    });
  }

 private:
  std::string literal_;
  std::unique_ptr<Regex> regex_;
  SplitBehavior behavior_;
  bool invert_;
};

class Metaspace final : public PreTokenizer {
 public:
  Metaspace(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(split) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    for (Piece& p : pieces) {
      std::string text;
      text.reserve(p.text.size() + replacement_.size());
      for (const char c : p.text) {
        if (c == ' ') text += replacement_;
        else text.push_back(c);
      }
      const bool starts = text.compare(0, replacement_.size(), replacement_) == 0;
      if (!starts && (scheme_ == PrependScheme::Always || (scheme_ == PrependScheme::First && p.at_start)))
        text.insert(0, replacement_);
      p.text = std::move(text);
    }
    if (split_) {
      std::vector<std::pair<size_t, size_t>> matches;
      split_pieces(pieces, [&](const std::string& text) {
        literal_matches(text, replacement_, matches);
        return split_by_matches(matches, text.size(), SplitBehavior::MergedWithNext, false);
      });
    }
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
  bool split_;
};

class Sequence final : public PreTokenizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    for (const auto& step : steps_) step->pre_tokenize(pieces);
  }
  bool byte_level() const override {
    for (const auto& step : steps_)
      if (step->byte_level()) return true;
    return false;
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_byte_level_pre_tokenizer(bool add_prefix_space, bool use_regex) {
  return std::make_unique<ByteLevelPreTokenizer>(add_prefix_space, use_regex);
}
std::unique_ptr<PreTokenizer> make_split(std::string literal, std::unique_ptr<Regex> regex, SplitBehavior behavior,
                                         bool invert) {
  return std::make_unique<Split>(std::move(literal), std::move(regex), behavior, invert);
}
std::unique_ptr<PreTokenizer> make_metaspace(std::string replacement, PrependScheme scheme, bool split) {
  return std::make_unique<Metaspace>(std::move(replacement), scheme, split);
}
std::unique_ptr<PreTokenizer> make_pre_tokenizer_sequence(std::vector<std::unique_ptr<PreTokenizer>> steps) {
  return std::make_unique<Sequence>(std::move(steps));
}

}  // namespace sinklab::tok
