#pragma once
// The BPE model of tokenizer.json: a vocabulary, merges ranked by their order in the file, and the
// options the supported families use (byte_fallback, an unknown token with fuse_unk, ignore_merges).
// A word is encoded by merging, again and again, the adjacent pair of lowest rank (the leftmost on a
// tie), as HF's tokenizers does; a pair is found in a hash map, and the ids of a word already seen are
// taken from a cache (texts repeat their words).
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sinklab::tok {

struct BpeOptions {
  std::optional<int32_t> unk_id;  // the id of unk_token, when the file names one
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
};

struct BpeMerge {
  int32_t left, right, merged;  // ids; the rank is the position in the list
};

class BpeModel {
 public:
  BpeModel(std::unordered_map<std::string, int32_t> vocab, const std::vector<BpeMerge>& merges, BpeOptions options);

  // Appends the ids of one pre-tokenized word (valid UTF-8).
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;

  std::optional<int32_t> token_to_id(std::string_view token) const;
  const std::string* id_to_token(int32_t id) const;
  int32_t max_id() const { return max_id_; }
  size_t size() const { return vocab_.size(); }
  bool byte_fallback() const { return options_.byte_fallback; }

 private:
  void merge_word(std::string_view word, std::vector<int32_t>& out) const;
  void encode_part(std::string_view part, std::vector<int32_t>& out) const;

  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> vocab_;
  std::unordered_map<int32_t, const std::string*> tokens_;
  struct RankedMerge {
    int32_t rank, merged;
  };
  std::unordered_map<uint64_t, RankedMerge> merges_;
  std::vector<int32_t> byte_ids_;  // <0xXX> per byte, -1 where absent (byte_fallback)
  BpeOptions options_;
  int32_t max_id_ = -1;
  // No token has "▁" right after another character: no merge can join a character to a following
  // "▁", so a word may be cut there and its parts encoded (and cached) apart with the same ids.
  // SentencePiece files have no pre-tokenizer: without this a whole text is one word.
  bool cut_before_metaspace_ = false;

  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>> cache_;
};

}  // namespace sinklab::tok
