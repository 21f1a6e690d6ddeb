#include "data/token_cache.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <xxhash.h>

#include "core/io/file_read.h"
#include "core/io/file_write.h"

namespace sinklab {

namespace fs = std::filesystem;

namespace {

// The start of every entry, in this machine's byte order (a machine of the other order reads a format it
// does not know and tokenizes). Followed by `tokens` int32 ids and `word_list_bytes` of words, each ended
// by '\n' (a token never holds white space).
struct Header {
  char magic[8];
  uint64_t format;
  uint64_t corpus_bytes;
  uint64_t corpus_hash;
  uint64_t tokenizer;  // 0 char, 1 word
  uint64_t vocab_size;
  uint64_t val_fraction_bits;
  uint64_t tokens;
  uint64_t train;
  uint64_t word_list_bytes;
  uint64_t checksum;  // XXH3-64 over this header (checksum 0), the ids and the word list
};
static_assert(std::is_trivially_copyable_v<Header> && sizeof(Header) == 88);
constexpr char kMagic[8] = {'S', 'L', 'T', 'O', 'K', 'E', 'N', 'S'};

uint64_t bits_of(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

std::string_view bytes_of(const Header& h) { return {reinterpret_cast<const char*>(&h), sizeof h}; }
std::string_view bytes_of(std::span<const int32_t> ids) {
  return {reinterpret_cast<const char*>(ids.data()), ids.size_bytes()};
}

std::string word_list_of(const WordVocabulary* words) {
  std::string list;
  if (words != nullptr)
    for (const std::string& word : words->words()) list += word + '\n';
  return list;
}

// XXH3-64 of the header (its checksum 0), the ids and the word list, streamed: the same hash as checkpoint
// format 4's data checksum, ~20x faster than the byte-serial FNV-1a format 1 used.
uint64_t checksum_of(const Header& h, std::span<const int32_t> ids, std::string_view word_list) {
  XXH3_state_t* state = XXH3_createState();
  if (state == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(state);
  for (const std::string_view piece : {bytes_of(h), bytes_of(ids), word_list})
    XXH3_64bits_update(state, piece.data(), piece.size());
  const uint64_t sum = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return sum;
}

Header header_of(const TokenCacheKey& key, std::span<const int32_t> ids, std::size_t train,
                 std::string_view word_list, uint64_t format) {
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.format = format;
  h.corpus_bytes = key.corpus_bytes;
  h.corpus_hash = key.corpus_hash;
  h.tokenizer = key.tokenizer == TextTokenizer::word ? 1 : 0;
  h.vocab_size = static_cast<uint64_t>(key.vocab_size);
  h.val_fraction_bits = bits_of(key.val_fraction);
  h.tokens = ids.size();
  h.train = train;
  h.word_list_bytes = word_list.size();
  h.checksum = checksum_of(h, ids, word_list);
  return h;
}

void note(const std::string& text) { std::fprintf(stderr, "sinklab: note: %s\n", text.c_str()); }

// A folder's trouble is said once per process (a sweep builds many tasks).
void note_once_for(const fs::path& folder, const std::string& text) {
  static std::mutex mutex;
  static std::set<std::string> noted;
  const std::lock_guard lock(mutex);
  if (noted.insert(folder.string()).second) note(text);
}

// Why an entry is not trusted.
class Untrusted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<std::string> split_word_list(std::string_view list) {
  std::vector<std::string> words;
  while (!list.empty()) {
    const std::size_t end = list.find('\n');
    if (end == std::string_view::npos) throw Untrusted("its word list does not end with a line end");
    words.emplace_back(list.substr(0, end));
    list.remove_prefix(end + 1);
  }
  return words;
}

TokenCacheEntry read_entry(const fs::path& path, const TokenCacheKey& key) {
  // An entry holds at most 4 bytes per corpus byte (a token is at least one byte) and a word list no
  // longer than the corpus's distinct tokens with their line ends and "<unk>".
  const uint64_t most = sizeof(Header) + 5 * key.corpus_bytes + static_cast<uint64_t>(key.vocab_size) + 8;
  const ReadableFile file(path, "token cache entry", most);
  Header h{};
  file.read_into(0, sizeof h, reinterpret_cast<char*>(&h));
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) throw Untrusted("is not a token cache entry (no SLTOKENS)");
  if (h.format != kTokenCacheFormat)
    throw Untrusted("has format " + std::to_string(h.format) + ", this build reads " +
                    std::to_string(kTokenCacheFormat));
  const bool word = key.tokenizer == TextTokenizer::word;
  if (h.corpus_bytes != key.corpus_bytes || h.corpus_hash != key.corpus_hash || h.tokenizer != (word ? 1u : 0u) ||
      h.vocab_size != static_cast<uint64_t>(key.vocab_size) || h.val_fraction_bits != bits_of(key.val_fraction))
    throw Untrusted("was written for another corpus or other tokenizer settings");
  if (h.tokens > h.corpus_bytes || h.train > h.tokens)
    throw Untrusted("holds " + std::to_string(h.tokens) + " tokens with a cut at " + std::to_string(h.train) +
                    " for a corpus of " + std::to_string(h.corpus_bytes) + " bytes");
  if (h.word_list_bytes > file.size() || sizeof h + 4 * h.tokens + h.word_list_bytes != file.size())
    throw Untrusted("is " + std::to_string(file.size()) + " bytes, not the " +
                    std::to_string(sizeof h + 4 * h.tokens) + " + " + std::to_string(h.word_list_bytes) +
                    " its header gives");
  if ((h.word_list_bytes != 0) != word) throw Untrusted("has a word list for the char tokenizer or none for word");

  TokenCacheEntry entry;
  entry.ids.resize(h.tokens);
  file.read_into(sizeof h, 4 * h.tokens, reinterpret_cast<char*>(entry.ids.data()));
  const std::string word_list = file.read(sizeof h + 4 * h.tokens, h.word_list_bytes);
  const uint64_t stored = h.checksum;
  h.checksum = 0;
  if (checksum_of(h, entry.ids, word_list) != stored)
    throw Untrusted("does not match its checksum");
  for (std::size_t i = 0; i < entry.ids.size(); ++i)
    if (entry.ids[i] < 0 || entry.ids[i] >= key.vocab_size)
      throw Untrusted("holds id " + std::to_string(entry.ids[i]) + " at token " + std::to_string(i) +
                      ", outside the vocabulary of " + std::to_string(key.vocab_size));
  entry.train = h.train;
  if (word) {
    std::vector<std::string> words = split_word_list(word_list);
    if (words.size() != static_cast<std::size_t>(key.vocab_size) ||
        !(entry.words = WordVocabulary::from_words(std::move(words))))
      throw Untrusted("holds a word list that is not a vocabulary of " + std::to_string(key.vocab_size) + " words");
  }
  return entry;
}

}  // namespace

TokenCacheKey TokenCacheKey::of(std::string_view corpus, TextTokenizer tokenizer, int vocab_size,
                                double val_fraction) {
  return {corpus.size(), XXH3_64bits(corpus.data(), corpus.size()), tokenizer, vocab_size, val_fraction};
}

std::string token_cache_entry_bytes(const TokenCacheKey& key, std::span<const int32_t> ids, std::size_t train,
                                    const WordVocabulary* words, uint64_t format) {
  const std::string word_list = word_list_of(words);
  const Header h = header_of(key, ids, train, word_list, format);
  return std::string(bytes_of(h)).append(bytes_of(ids)).append(word_list);
}

std::optional<TokenCache> TokenCache::from_environment() {
  if (const char* dir = std::getenv("SINKLAB_CACHE_DIR")) {
    if (*dir == '\0' || std::string_view(dir) == "off") return std::nullopt;
    return TokenCache(fs::path(dir) / "tokens");
  }
  // XDG: a relative XDG_CACHE_HOME is invalid and ignored.
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg == '/') return TokenCache(fs::path(xdg) / "sinklab" / "tokens");
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return TokenCache(fs::path(home) / ".cache" / "sinklab" / "tokens");
  note_once_for("", "token cache: no folder (neither SINKLAB_CACHE_DIR, XDG_CACHE_HOME nor HOME is set); the "
                    "corpus is tokenized in every run");
  return std::nullopt;
}

fs::path TokenCache::entry_path(const TokenCacheKey& key) const {
  char name[128];
  std::snprintf(name, sizeof name, "%016llx-%llu-%s%d-%016llx.v%llu.tokens",
                static_cast<unsigned long long>(key.corpus_hash), static_cast<unsigned long long>(key.corpus_bytes),
                key.tokenizer == TextTokenizer::word ? "word" : "char", key.vocab_size,
                static_cast<unsigned long long>(bits_of(key.val_fraction)),
                static_cast<unsigned long long>(kTokenCacheFormat));
  return folder_ / name;
}

std::optional<TokenCacheEntry> TokenCache::load(const TokenCacheKey& key) const {
  const fs::path path = entry_path(key);
  std::error_code ec;
  if (fs::symlink_status(path, ec).type() == fs::file_type::not_found) return std::nullopt;
  try {
    return read_entry(path, key);
  } catch (const Untrusted& e) {
    note("token cache entry " + path.string() + " " + e.what() + "; not trusted, tokenizing again and rewriting it");
  } catch (const FileReadError& e) {
    note(std::string(e.what()) + "; not trusted, tokenizing again and rewriting it");
  }
  return std::nullopt;
}

void TokenCache::store(const TokenCacheKey& key, std::span<const int32_t> ids, std::size_t train,
                       const WordVocabulary* words) const {
  const std::string tail = "; the corpus is tokenized in every run (docs/language-model.md, SINKLAB_CACHE_DIR)";
  std::error_code ec;
  fs::create_directories(folder_, ec);
  if (ec) {
    note_once_for(folder_, "token cache folder " + folder_.string() + " cannot be created: " + ec.message() + tail);
    return;
  }
  const std::string word_list = word_list_of(words);
  const Header h = header_of(key, ids, train, word_list, kTokenCacheFormat);
  const std::string_view pieces[] = {bytes_of(h), bytes_of(ids), word_list};
  try {
    write_file_atomically(entry_path(key), pieces);
  } catch (const FileWriteError& e) {
    note_once_for(folder_, "token cache folder " + folder_.string() + " cannot be written: " + e.what() + tail);
  }
}

}  // namespace sinklab
