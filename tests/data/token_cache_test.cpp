// The token cache: its folder comes from the environment, an entry read back gives exactly what tokenizing
// gives, a word-level text_lm task uses a trusted entry instead of tokenizing (a char one does not use the
// cache), every kind of damaged or foreign entry is ignored with one note and rewritten, and a folder that
// cannot be written costs one note.
#include "data/token_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/rng.h"
#include "data/text_corpus.h"
#include "data/text_lm_task.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

// Sets (or with nullopt unsets) an environment variable for one scope, then restores it: the test binary
// also runs all tests in one process.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string write_corpus(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// 3000 words drawn from 30 (with punctuation and capitals), so that vocab_size 20 leaves some unknown.
std::string random_words() {
  const std::vector<std::string> words = {"in",   "the",   "beginning", "God",  "created", "heaven", "and",  "earth",
                                          "was",  "without", "form",    "void", "darkness", "upon",  "face", "of",
                                          "deep", "spirit", "moved",    "waters", "said",   "let",   "there", "be",
                                          "light", ",",     ".",         ";",    ":",       "day"};
  Rng rng(11);
  std::string text;
  for (int i = 0; i < 3000; ++i) text += words[rng.below(words.size())] + (i % 17 == 16 ? "\n" : " ");
  return text;
}

std::string random_letters() {
  Rng rng(5);
  std::string text;
  for (int i = 0; i < 400; ++i) text += static_cast<char>('a' + rng.below(26));
  return text + "\n";
}

// Everything a task's encoding gives: its ids, its cut and its vocabulary (every id's label).
struct Encoding {
  std::vector<int32_t> ids;
  std::size_t train = 0;
  std::vector<std::string> labels;
  bool operator==(const Encoding&) const = default;
};

Encoding encoding_of(const TextLmTask& task) {
  Encoding e;
  e.ids.assign(task.corpus_ids().begin(), task.corpus_ids().end());
  e.train = task.train_tokens();
  for (int32_t id = 0; id < task.vocab_size(); ++id) e.labels.push_back(task.token_label(id));
  return e;
}

struct Settings {
  TextTokenizer tokenizer;
  int vocab_size;
};
constexpr Settings kChar{TextTokenizer::character, 0};
constexpr Settings kWord{TextTokenizer::word, 20};
constexpr double kValFraction = 0.2;

std::string text_for(const Settings& s) {
  return s.tokenizer == TextTokenizer::word ? random_words() : random_letters();
}

// A task over a new file holding `text`: a new file is a new corpus to this process's own sharing of
// encodings (data/text_corpus.h), so the encoding comes from the token cache or from tokenizing.
TextLmTask task_over(const std::string& text, const Settings& s) {
  static int files = 0;
  const fs::path path = testing::test_file("corpus" + std::to_string(files++) + ".txt");
  return TextLmTask(write_corpus(path, text), s.tokenizer, s.vocab_size, kValFraction, 4);
}

TokenCacheKey key_for(const std::string& text, const Settings& s) {
  const int v = s.tokenizer == TextTokenizer::word ? s.vocab_size : CharVocabulary(text).size();
  return TokenCacheKey::of(text, s.tokenizer, v, kValFraction);
}

std::size_t note_lines(const std::string& err) {
  std::size_t n = 0;
  for (std::size_t at = err.find("sinklab: note:"); at != std::string::npos; at = err.find("sinklab: note:", at + 1))
    ++n;
  return n;
}

TEST(TokenCache, TheFolderComesFromTheEnvironment) {
  {
    const ScopedEnv dir("SINKLAB_CACHE_DIR", "/somewhere/cache");
    ASSERT_TRUE(TokenCache::from_environment());
    EXPECT_EQ(TokenCache::from_environment()->folder(), fs::path("/somewhere/cache/tokens"));
  }
  for (const char* off : {"off", ""}) {
    const ScopedEnv dir("SINKLAB_CACHE_DIR", off);
    EXPECT_FALSE(TokenCache::from_environment()) << "'" << off << "'";
  }
  const ScopedEnv no_dir("SINKLAB_CACHE_DIR", std::nullopt);
  {
    const ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    ASSERT_TRUE(TokenCache::from_environment());
    EXPECT_EQ(TokenCache::from_environment()->folder(), fs::path("/xdg/sinklab/tokens"));
  }
  const ScopedEnv relative_xdg("XDG_CACHE_HOME", "relative");  // not absolute: ignored, as XDG says
  {
    const ScopedEnv home("HOME", "/home/someone");
    ASSERT_TRUE(TokenCache::from_environment());
    EXPECT_EQ(TokenCache::from_environment()->folder(), fs::path("/home/someone/.cache/sinklab/tokens"));
  }
  const ScopedEnv no_home("HOME", std::nullopt);
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(TokenCache::from_environment());
  EXPECT_FALSE(TokenCache::from_environment());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(note_lines(err), 1u) << err;  // said once per process
  EXPECT_NE(err.find("neither SINKLAB_CACHE_DIR, XDG_CACHE_HOME nor HOME is set"), std::string::npos) << err;
}

// The first word task tokenizes and writes the entry; a task over another file with the same bytes reads it
// and has exactly the first one's ids, cut and vocabulary.
TEST(TokenCache, AWordHitIsBitIdenticalToTokenizing) {
  const ScopedEnv dir("SINKLAB_CACHE_DIR", (testing::fresh_test_dir() / "cache").string());
  const std::string text = random_words();
  const TokenCache cache = TokenCache::from_environment().value();
  ::testing::internal::CaptureStderr();  // no ASSERT until it ends: gtest allows one capture at a time
  const Encoding fresh = encoding_of(task_over(text, kWord));
  const bool written = fs::is_regular_file(cache.entry_path(key_for(text, kWord)));
  const Encoding cached = encoding_of(task_over(text, kWord));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ASSERT_TRUE(written);
  EXPECT_EQ(cached, fresh);
  const std::optional<TokenCacheEntry> stored = cache.load(key_for(text, kWord));
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->ids, fresh.ids);
  EXPECT_EQ(stored->train, fresh.train);
  ASSERT_TRUE(stored->words);
  std::vector<std::string> labels = stored->words->words();
  labels[0] = "<bos>";  // token_label's name for BOS
  EXPECT_EQ(labels, fresh.labels);
  EXPECT_LT(fresh.train, fresh.ids.size());
  EXPECT_NE(std::find(fresh.ids.begin(), fresh.ids.end(), WordVocabulary::kUnknown), fresh.ids.end());
}

// The char tokenizer is faster than the cache (data/text_lm_task.cpp): a char task writes and reads nothing.
TEST(TokenCache, ACharTaskTokenizesWithoutTheCache) {
  const fs::path root = testing::fresh_test_dir() / "cache";
  const ScopedEnv dir("SINKLAB_CACHE_DIR", root.string());
  const std::string text = random_letters();
  const TokenCache cache = TokenCache::from_environment().value();
  const Encoding fresh = encoding_of(task_over(text, kChar));
  EXPECT_FALSE(fs::exists(root));
  std::vector<int32_t> other(fresh.ids.rbegin(), fresh.ids.rend());
  cache.store(key_for(text, kChar), other, fresh.train, nullptr);
  EXPECT_EQ(encoding_of(task_over(text, kChar)), fresh);
}

// The entry format holds char encodings too: one reads back as written, with no word list.
TEST(TokenCache, ACharEntryReadsBackAsWritten) {
  const ScopedEnv dir("SINKLAB_CACHE_DIR", (testing::fresh_test_dir() / "cache").string());
  const TokenCache cache = TokenCache::from_environment().value();
  const std::string text = random_letters();
  const Encoding fresh = encoding_of(task_over(text, kChar));
  cache.store(key_for(text, kChar), fresh.ids, fresh.train, nullptr);
  const std::optional<TokenCacheEntry> stored = cache.load(key_for(text, kChar));
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->ids, fresh.ids);
  EXPECT_EQ(stored->train, fresh.train);
  EXPECT_FALSE(stored->words);
}

// A trusted entry is used instead of tokenizing: an entry holding other (valid) ids gives those ids.
TEST(TokenCache, AWordTaskUsesATrustedEntryInsteadOfTokenizing) {
  const ScopedEnv dir("SINKLAB_CACHE_DIR", (testing::fresh_test_dir() / "cache").string());
  const TokenCache cache = TokenCache::from_environment().value();
  const std::string text = random_words();
  const Encoding fresh = encoding_of(task_over(text, kWord));
  std::vector<int32_t> other(fresh.ids.rbegin(), fresh.ids.rend());
  std::optional<TokenCacheEntry> entry = cache.load(key_for(text, kWord));
  ASSERT_TRUE(entry && entry->words);
  cache.store(key_for(text, kWord), other, fresh.train, &*entry->words);
  EXPECT_EQ(encoding_of(task_over(text, kWord)).ids, other);
}

// Another corpus (one byte changed) or other settings are other entries.
TEST(TokenCache, OtherBytesOrSettingsAreOtherEntries) {
  const std::string text = random_words();
  std::string changed = text;
  changed[100] = changed[100] == 'x' ? 'y' : 'x';
  const TokenCacheKey key = key_for(text, kWord);
  TokenCacheKey other_vocab = key, other_split = key, other_tokenizer = key;
  other_vocab.vocab_size = 21;
  other_split.val_fraction = 0.25;
  other_tokenizer.tokenizer = TextTokenizer::character;
  const TokenCache cache("/x");
  for (const TokenCacheKey& other : {key_for(changed, kWord), other_vocab, other_split, other_tokenizer})
    EXPECT_NE(cache.entry_path(other), cache.entry_path(key));
}

// Each kind of entry that must not be trusted: its bytes from the good entry's, and what the note says.
struct Damage {
  const char* name;
  std::string (*bytes)(const std::string& good, const TokenCacheKey& key, const TokenCacheEntry& entry);
  std::string note;
};

std::string with_ids(const TokenCacheKey& key, const TokenCacheEntry& entry, std::vector<int32_t> ids) {
  return token_cache_entry_bytes(key, ids, entry.train, entry.words ? &*entry.words : nullptr);
}

const Damage kDamages[] = {
    {"bad magic",
     [](const std::string& good, const TokenCacheKey&, const TokenCacheEntry&) { return "X" + good.substr(1); },
     "is not a token cache entry"},
    {"truncated header",
     [](const std::string& good, const TokenCacheKey&, const TokenCacheEntry&) { return good.substr(0, 40); },
     "truncated"},
    {"truncated ids",
     [](const std::string& good, const TokenCacheKey&, const TokenCacheEntry&) {
       return good.substr(0, good.size() - 4);
     },
     "bytes, not the"},
    {"a byte too many",
     [](const std::string& good, const TokenCacheKey&, const TokenCacheEntry&) { return good + "x"; },
     "bytes, not the"},
    {"another format",
     [](const std::string&, const TokenCacheKey& key, const TokenCacheEntry& entry) {
       return token_cache_entry_bytes(key, entry.ids, entry.train, entry.words ? &*entry.words : nullptr,
                                      kTokenCacheFormat + 1);
     },
     "has format " + std::to_string(kTokenCacheFormat + 1) + ", this build reads " +
         std::to_string(kTokenCacheFormat)},
    {"checksum",
     [](const std::string& good, const TokenCacheKey&, const TokenCacheEntry&) {
       std::string bad = good;
       bad[100] = static_cast<char>(bad[100] ^ 1);  // in the ids, still in range
       return bad;
     },
     "does not match its checksum"},
    {"another corpus",
     [](const std::string&, const TokenCacheKey& key, const TokenCacheEntry& entry) {
       TokenCacheKey other = key;
       other.corpus_hash ^= 1;
       return token_cache_entry_bytes(other, entry.ids, entry.train, entry.words ? &*entry.words : nullptr);
     },
     "was written for another corpus or other tokenizer settings"},
    {"id out of range",
     [](const std::string&, const TokenCacheKey& key, const TokenCacheEntry& entry) {
       std::vector<int32_t> ids = entry.ids;
       ids[7] = key.vocab_size;
       return with_ids(key, entry, ids);
     },
     "at token 7, outside the vocabulary of"},
    {"negative id",
     [](const std::string&, const TokenCacheKey& key, const TokenCacheEntry& entry) {
       std::vector<int32_t> ids = entry.ids;
       ids[3] = -1;
       return with_ids(key, entry, ids);
     },
     "holds id -1 at token 3"},
    {"cut past the end",
     [](const std::string&, const TokenCacheKey& key, const TokenCacheEntry& entry) {
       return token_cache_entry_bytes(key, entry.ids, entry.ids.size() + 1, entry.words ? &*entry.words : nullptr);
     },
     "with a cut at"},
};

// Every damage kind, for char and word entries: load ignores the entry with one note naming it and why. A
// word task then tokenizes as before (the same encoding) and rewrites the entry, which is trusted again.
TEST(TokenCache, ADamagedOrForeignEntryIsIgnoredWithOneNoteAndRewritten) {
  const ScopedEnv dir("SINKLAB_CACHE_DIR", (testing::fresh_test_dir() / "cache").string());
  const TokenCache cache = TokenCache::from_environment().value();
  for (const Settings& s : {kChar, kWord}) {
    const bool word = s.tokenizer == TextTokenizer::word;
    const std::string text = text_for(s);
    const TokenCacheKey key = key_for(text, s);
    const Encoding fresh = encoding_of(task_over(text, s));
    const fs::path entry_path = cache.entry_path(key);
    if (!word) cache.store(key, fresh.ids, fresh.train, nullptr);
    const std::string good = testing::read_text(entry_path);
    const std::optional<TokenCacheEntry> stored = cache.load(key);
    ASSERT_TRUE(stored);
    const TokenCacheEntry& entry = *stored;
    for (const Damage& damage : kDamages) {
      SCOPED_TRACE(std::string(damage.name) + (word ? " (word)" : " (char)"));
      const std::string bad = damage.bytes(good, key, entry);
      ASSERT_NE(bad, good);
      std::ofstream(entry_path, std::ios::binary | std::ios::trunc) << bad;

      ::testing::internal::CaptureStderr();
      EXPECT_FALSE(cache.load(key));
      std::string err = ::testing::internal::GetCapturedStderr();
      EXPECT_EQ(note_lines(err), 1u) << err;
      EXPECT_NE(err.find(entry_path.string()), std::string::npos) << err;
      EXPECT_NE(err.find(damage.note), std::string::npos) << err;
      EXPECT_NE(err.find("not trusted, tokenizing again and rewriting it"), std::string::npos) << err;
      if (!word) continue;

      ::testing::internal::CaptureStderr();
      EXPECT_EQ(encoding_of(task_over(text, s)), fresh);
      err = ::testing::internal::GetCapturedStderr();
      EXPECT_EQ(note_lines(err), 1u) << err;
      EXPECT_EQ(testing::read_text(entry_path), good);  // rewritten
    }
  }
}

// A word list that is not the vocabulary of the key (another size) is not trusted either.
TEST(TokenCache, AWordListOfAnotherSizeIsNotTrusted) {
  const ScopedEnv dir("SINKLAB_CACHE_DIR", (testing::fresh_test_dir() / "cache").string());
  const TokenCache cache = TokenCache::from_environment().value();
  const std::string text = random_words();
  const TokenCacheKey key = key_for(text, kWord);
  const WordTokens tokens(text);
  const WordVocabulary larger(tokens, tokens.size(), kWord.vocab_size + 1);
  const Encoding fresh = encoding_of(task_over(text, kWord));
  testing::write_text(cache.entry_path(key), token_cache_entry_bytes(key, fresh.ids, fresh.train, &larger));
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.load(key));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("holds a word list that is not a vocabulary of 20 words"), std::string::npos) << err;
}

// A folder that cannot be created is no error of the run: one note per process naming it, then tokenizing.
TEST(TokenCache, AFolderThatCannotBeCreatedCostsOneNoteAndNothingElse) {
  const fs::path blocker = testing::fresh_test_dir() / "a_file";
  testing::write_text(blocker, "not a folder");
  const ScopedEnv dir("SINKLAB_CACHE_DIR", (blocker / "cache").string());
  ::testing::internal::CaptureStderr();
  const Encoding first = encoding_of(task_over(random_words(), kWord));
  const Encoding second = encoding_of(task_over(random_words() + "and more words", kWord));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(note_lines(err), 1u) << err;
  EXPECT_NE(err.find("token cache folder " + (blocker / "cache" / "tokens").string() + " cannot be created: "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("the corpus is tokenized in every run"), std::string::npos) << err;
  EXPECT_FALSE(first.ids.empty());
  EXPECT_EQ(second.ids.size(), first.ids.size() + 3);
}

TEST(TokenCache, OffWritesNothingAndSaysNothing) {
  const fs::path root = testing::fresh_test_dir();
  const ScopedEnv dir("SINKLAB_CACHE_DIR", "off");
  const ScopedEnv xdg("XDG_CACHE_HOME", (root / "xdg").string());
  const ScopedEnv home("HOME", (root / "home").string());
  ::testing::internal::CaptureStderr();
  const Encoding e = encoding_of(task_over(random_words(), kWord));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_FALSE(e.ids.empty());
  EXPECT_FALSE(fs::exists(root / "xdg"));
  EXPECT_FALSE(fs::exists(root / "home"));
}

// Writers of one entry at once all succeed and leave one whole entry, no temporaries.
TEST(TokenCache, WritersOfOneEntryAtOnceAllSucceed) {
  const ScopedEnv dir("SINKLAB_CACHE_DIR", (testing::fresh_test_dir() / "cache").string());
  const TokenCache cache = TokenCache::from_environment().value();
  const std::string text = random_words();
  const TokenCacheKey key = key_for(text, kWord);
  const Encoding fresh = encoding_of(task_over(text, kWord));
  const std::optional<TokenCacheEntry> stored = cache.load(key);
  ASSERT_TRUE(stored);
  const TokenCacheEntry& entry = *stored;
  ::testing::internal::CaptureStderr();
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&] {
      for (int i = 0; i < 20; ++i) cache.store(key, entry.ids, entry.train, &*entry.words);
    });
  for (std::thread& w : writers) w.join();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  const std::optional<TokenCacheEntry> after = cache.load(key);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->ids, fresh.ids);
  std::size_t files = 0;
  for (const auto& f : fs::directory_iterator(cache.folder())) files += f.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1u);
}

}  // namespace
}  // namespace sinklab
