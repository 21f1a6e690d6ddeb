#pragma once
// The on-disk cache of one encoded corpus (the text_lm task, docs/language-model.md): a later process
// over the same corpus bytes and tokenizer settings reads the ids instead of tokenizing again.
//
// Folder: $SINKLAB_CACHE_DIR/tokens; without it $XDG_CACHE_HOME/sinklab/tokens, else
// $HOME/.cache/sinklab/tokens. SINKLAB_CACHE_DIR=off (or set and empty) turns the cache off.
// An entry is one file named by its key. Nothing about the cache is an error of a run: a folder that
// cannot be created or written, or an entry that is damaged, truncated, of another format or written for
// other settings, costs one note line on stderr ("sinklab: note: token cache ...") and a tokenization.
// A trusted entry holds exactly what tokenizing gives: the ids, the training part's cut and (word
// tokenizer) the vocabulary's words by id; the char vocabulary is rebuilt from the text. The text_lm task
// caches word encodings only (data/text_lm_task.cpp says why).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "data/text_lm_task.h"
#include "data/word_vocabulary.h"

namespace sinklab {

// The entry layout's version; bump it whenever the file layout or what either tokenizer gives for a text
// changes, so that entries written before are not trusted.
inline constexpr uint64_t kTokenCacheFormat = 2;  // 2: XXH3-64 key and checksum (1: FNV-1a)

// What an encoding depends on.
struct TokenCacheKey {
  uint64_t corpus_bytes = 0;
  uint64_t corpus_hash = 0;  // XXH3-64 of the corpus's bytes
  TextTokenizer tokenizer = TextTokenizer::character;
  int vocab_size = 0;  // word: task.vocab_size; char: the corpus's (BOS + its distinct bytes)
  double val_fraction = 0;

  static TokenCacheKey of(std::string_view corpus, TextTokenizer tokenizer, int vocab_size, double val_fraction);
  bool operator==(const TokenCacheKey&) const = default;
};

struct TokenCacheEntry {
  std::vector<int32_t> ids;  // the whole corpus, every id in [0, vocab_size)
  std::size_t train = 0;     // ids[0 .. train) are the training part
  std::optional<WordVocabulary> words;  // the word tokenizer's vocabulary; none for char
};

// An entry file's bytes: a header (magic, format, key, counts, checksum), the ids, the word list. Tests
// write damaged or foreign entries with it (another `format`, ids out of range).
std::string token_cache_entry_bytes(const TokenCacheKey& key, std::span<const int32_t> ids, std::size_t train,
                                    const WordVocabulary* words, uint64_t format = kTokenCacheFormat);

class TokenCache {
 public:
  // The cache the environment names (see above); nullopt when it is off, or when no folder can be named
  // (one note line then: neither SINKLAB_CACHE_DIR, XDG_CACHE_HOME nor HOME is set).
  static std::optional<TokenCache> from_environment();
  explicit TokenCache(std::filesystem::path folder) : folder_(std::move(folder)) {}

  const std::filesystem::path& folder() const { return folder_; }
  std::filesystem::path entry_path(const TokenCacheKey& key) const;

  // The entry of `key`; nullopt when there is none, or (one note line) when it cannot be trusted.
  std::optional<TokenCacheEntry> load(const TokenCacheKey& key) const;
  // Writes the entry of `key` atomically (core/io/file_write.h); a folder that cannot be created or
  // written costs one note line per process, never an exception.
  void store(const TokenCacheKey& key, std::span<const int32_t> ids, std::size_t train,
             const WordVocabulary* words) const;

 private:
  std::filesystem::path folder_;
};

}  // namespace sinklab
