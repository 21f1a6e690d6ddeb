#include "tokenizers/bpe_model.h"

#include <cstdio>
#include <queue>

#include "tokenizers/utf8.h"

namespace sinklab::tok {

namespace {

uint64_t pair_key(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

// Words longer than this are not cached, and the cache is emptied when it holds this many words:
// bounded memory on any text, while a book's vocabulary of words fits.
constexpr size_t kMaxCachedWordBytes = 256;
constexpr size_t kMaxCachedWords = 1 << 18;
constexpr std::string_view kMetaspace = "\xE2\x96\x81";  // U+2581

}  // namespace

BpeModel::BpeModel(std::unordered_map<std::string, int32_t> vocab, const std::vector<BpeMerge>& merges,
                   BpeOptions options)
    : options_(options) {
  vocab_.reserve(vocab.size());
  for (auto& [token, id] : vocab) vocab_.emplace(token, id);
  for (const auto& [token, id] : vocab_) {
    tokens_[id] = &token;
    max_id_ = std::max(max_id_, id);
  }
  cut_before_metaspace_ = true;
  for (const auto& [token, id] : vocab_) {
    for (size_t pos = token.find(kMetaspace, 1); pos != std::string::npos; pos = token.find(kMetaspace, pos + 1)) {
      if (token.compare(pos - kMetaspace.size(), kMetaspace.size(), kMetaspace) != 0) cut_before_metaspace_ = false;
    }
  }
  merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    // A pair listed twice keeps its last rank, as HF's map built in file order does.
    merges_.insert_or_assign(pair_key(merges[rank].left, merges[rank].right),
                             RankedMerge{static_cast<int32_t>(rank), merges[rank].merged});
  }
  if (options_.byte_fallback) {
    byte_ids_.assign(256, -1);
    for (int b = 0; b < 256; ++b) {
      char name[8];
      std::snprintf(name, sizeof name, "<0x%02X>", b);
      if (auto it = vocab_.find(std::string_view(name)); it != vocab_.end()) byte_ids_[b] = it->second;
    }
  }
}

std::optional<int32_t> BpeModel::token_to_id(std::string_view token) const {
  if (auto it = vocab_.find(token); it != vocab_.end()) return it->second;
  return std::nullopt;
}

const std::string* BpeModel::id_to_token(int32_t id) const {
  if (auto it = tokens_.find(id); it != tokens_.end()) return it->second;
  return nullptr;
}

void BpeModel::encode_word(std::string_view word, std::vector<int32_t>& out) const {
  if (word.empty()) return;
  if (options_.ignore_merges) {
    if (auto it = vocab_.find(word); it != vocab_.end()) {
      out.push_back(it->second);
      return;
    }
  }
  if (!cut_before_metaspace_ || word.size() <= kMaxCachedWordBytes) {
    encode_part(word, out);
    return;
  }
  size_t begin = 0;
  for (size_t pos = word.find(kMetaspace, 1); pos != std::string_view::npos; pos = word.find(kMetaspace, pos + 1)) {
    if (word.compare(pos - kMetaspace.size(), kMetaspace.size(), kMetaspace) == 0) continue;  // inside a run of "▁"
    encode_part(word.substr(begin, pos - begin), out);
    begin = pos;
  }
  encode_part(word.substr(begin), out);
}

void BpeModel::encode_part(std::string_view word, std::vector<int32_t>& out) const {
  const bool cacheable = word.size() <= kMaxCachedWordBytes;
  if (cacheable) {
    std::lock_guard lock(cache_mutex_);
    if (auto it = cache_.find(word); it != cache_.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int32_t> ids;
  merge_word(word, ids);
  out.insert(out.end(), ids.begin(), ids.end());
  if (cacheable) {
    std::lock_guard lock(cache_mutex_);
    if (cache_.size() >= kMaxCachedWords) cache_.clear();
    cache_.emplace(std::string(word), std::move(ids));
  }
}

void BpeModel::merge_word(std::string_view word, std::vector<int32_t>& out) const {
  // The symbols of the word, one per character (or per byte through byte_fallback), in a linked list.
  struct Symbol {
    int32_t id;
    int32_t prev, next;
    bool alive;
  };
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  bool previous_unk = false;
  size_t i = 0;
  while (i < word.size()) {
    const size_t begin = i;
    next_code_point(word, i);
    const std::string_view ch = word.substr(begin, i - begin);
    if (auto it = vocab_.find(ch); it != vocab_.end()) {
      symbols.push_back({it->second, 0, 0, true});
      previous_unk = false;
      continue;
    }
    if (options_.byte_fallback) {
      bool all = true;
      for (const char c : ch) all = all && byte_ids_[static_cast<unsigned char>(c)] >= 0;
      if (all) {
        for (const char c : ch) symbols.push_back({byte_ids_[static_cast<unsigned char>(c)], 0, 0, true});
        previous_unk = false;
        continue;
      }
    }
    // Unknown: the unk token (consecutive ones fused into one when fuse_unk), or dropped when the
    // file names none, as HF does.
    if (options_.unk_id) {
      if (!(options_.fuse_unk && previous_unk)) symbols.push_back({*options_.unk_id, 0, 0, true});
      previous_unk = true;
    }
  }
  const auto n = static_cast<int32_t>(symbols.size());
  for (int32_t k = 0; k < n; ++k) {
    symbols[k].prev = k - 1;
    symbols[k].next = k + 1 < n ? k + 1 : -1;
  }

  // Candidate merges ordered by (rank, position of the left symbol).
  struct Candidate {
    int32_t rank, pos, merged;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  const auto push = [&](int32_t pos) {
    const int32_t next = symbols[pos].next;
    if (next < 0) return;
    if (auto it = merges_.find(pair_key(symbols[pos].id, symbols[next].id)); it != merges_.end())
      queue.push({it->second.rank, pos, it->second.merged});
  };
  for (int32_t k = 0; k + 1 < n; ++k) push(k);
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (!left.alive || left.next < 0) continue;
    // Stale when either side changed since the candidate was queued.
    auto it = merges_.find(pair_key(left.id, symbols[left.next].id));
    if (it == merges_.end() || it->second.merged != top.merged || it->second.rank != top.rank) continue;
    Symbol& right = symbols[left.next];
    left.id = top.merged;
    right.alive = false;
    left.next = right.next;
    if (left.next >= 0) symbols[left.next].prev = top.pos;
    if (left.prev >= 0) push(left.prev);
    push(top.pos);
  }
  for (int32_t k = n > 0 ? 0 : -1; k >= 0; k = symbols[k].next) out.push_back(symbols[k].id);
}

}  // namespace sinklab::tok
