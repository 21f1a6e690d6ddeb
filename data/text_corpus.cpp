#include "data/text_corpus.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/io/file_read.h"
#include "data/task.h"

namespace sinklab {
namespace {

// A corpus is read whole into memory; far above any text a tiny model trains on (KJV: 4.4 MB).
constexpr uint64_t kMaxCorpusBytes = uint64_t{4} << 30;

struct CacheEntry {
  std::uintmax_t size;
  std::filesystem::file_time_type modified;
  std::shared_ptr<const TextCorpus> corpus;
};

std::string byte_text(unsigned char b) {
  if (b >= 0x20 && b < 0x7f) return "'" + std::string(1, static_cast<char>(b)) + "'";
  std::ostringstream s;
  s << "byte 0x" << std::hex << static_cast<int>(b);
  return s.str();
}

}  // namespace

std::shared_ptr<const TextCorpus> load_text_corpus(const std::string& path, const std::string& key) {
  namespace fs = std::filesystem;
  const std::string where = key + ": corpus file " + path + ": ";
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw TaskError(where + "not found (the KJV corpus is made by scripts/get_corpus.sh)", {key});
  if (fs::is_directory(status)) throw TaskError(where + "is a directory, not a text file", {key});
  // A device or FIFO (/dev/zero, a named pipe) would be read without end or block: refused by the reader.
  const auto read_error = [&](const FileReadError& e) {
    const std::string reason = e.what(), prefix = "corpus file " + path + ": ";
    return TaskError(where + (reason.rfind(prefix, 0) == 0 ? reason.substr(prefix.size()) : reason), {key});
  };
  uint64_t size = 0;
  try {
    size = regular_file_size(path, "corpus file");
  } catch (const FileReadError& e) {
    throw read_error(e);
  }
  const auto modified = fs::last_write_time(path, ec);
  if (ec) throw TaskError(where + "cannot be read: " + ec.message(), {key});

  static std::mutex mutex;
  static std::map<std::string, CacheEntry> cache;
  const std::lock_guard lock(mutex);
  if (auto it = cache.find(path); it != cache.end() && it->second.size == size && it->second.modified == modified)
    return it->second.corpus;

  auto corpus = std::make_shared<TextCorpus>();
  corpus->path = path;
  try {
    corpus->text = read_regular_file(path, kMaxCorpusBytes, "corpus file");
  } catch (const FileReadError& e) {
    throw read_error(e);
  }
  if (corpus->text.empty()) throw TaskError(where + "is empty", {key});
  cache[path] = {size, modified, corpus};
  return corpus;
}

CharVocabulary::CharVocabulary(std::string_view text) {
  std::array<bool, 256> seen{};
  for (const char c : text) seen[static_cast<unsigned char>(c)] = true;
  ids_.fill(-1);
  for (int b = 0; b < 256; ++b) {
    if (!seen[static_cast<std::size_t>(b)]) continue;
    bytes_.push_back(static_cast<unsigned char>(b));
    ids_[static_cast<std::size_t>(b)] = static_cast<int32_t>(bytes_.size());
  }
}

std::vector<int32_t> CharVocabulary::encode(std::string_view text) const {
  std::vector<int32_t> ids(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    ids[i] = ids_[b];
    if (ids[i] < 0)
      throw TaskError("the character vocabulary has no " + byte_text(b) + " (at byte " + std::to_string(i) + ")");
  }
  return ids;
}

std::string CharVocabulary::decode(const int32_t* ids, std::size_t count) const {
  std::string out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    if (ids[i] >= 1 && ids[i] < size()) out += static_cast<char>(byte_of(ids[i]));
  return out;
}

}  // namespace sinklab
