#pragma once
// A text corpus for the token tasks (text_lm, bigram_backcopy): a file read whole, and its byte-level
// character vocabulary. Bytes, not code points: a UTF-8 file works unchanged, a multi-byte character
// is several tokens (the KJV text of scripts/get_corpus.sh is plain ASCII, 63 distinct bytes).
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sinklab {

struct TextCorpus {
  std::string path;  // as loaded (absolute when it comes from a config)
  std::string text;  // the file's bytes
};

// Reads `path` once per process and shares it (a sweep's task is built several times per run); a file
// changed on disk since (size or modification time) is read again. Throws TaskError naming `key` when
// the file is missing, unreadable, a directory or empty.
std::shared_ptr<const TextCorpus> load_text_corpus(const std::string& path, const std::string& key);

// id 0 = BOS; ids 1..n = the distinct bytes of the text in ascending byte order.
class CharVocabulary {
 public:
  static constexpr int32_t kBos = 0;
  explicit CharVocabulary(std::string_view text);

  int size() const { return static_cast<int>(bytes_.size()) + 1; }  // BOS included
  int32_t id_of(unsigned char byte) const { return ids_[byte]; }    // -1: not in the vocabulary
  unsigned char byte_of(int32_t id) const { return bytes_[static_cast<std::size_t>(id - 1)]; }  // id in 1..n
  // Every byte of `text` as an id; throws TaskError for a byte the vocabulary lacks (naming it).
  std::vector<int32_t> encode(std::string_view text) const;
  std::string decode(const int32_t* ids, std::size_t count) const;  // BOS and unknown ids are skipped

 private:
  std::array<int32_t, 256> ids_;
  std::vector<unsigned char> bytes_;
};

}  // namespace sinklab
