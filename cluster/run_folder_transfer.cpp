#include "cluster/run_folder_transfer.h"

#include <cstring>
#include <vector>

#include "core/io/file_read.h"
#include "core/io/file_write.h"
#include "run_files/run_folder_lock.h"

namespace sinklab::cluster {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[] = "SINKRUN1";
constexpr std::size_t kMagicBytes = 8;
constexpr std::uint32_t kMaxPathBytes = 4096;

template <class Int>
void put(std::string& out, Int value) {
  for (std::size_t i = 0; i < sizeof(Int); ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// Reads the packed bytes front to back; every read is bounded by what is left.
class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  template <class Int>
  Int get() {
    need(sizeof(Int), "a number");
    Int value = 0;
    for (std::size_t i = 0; i < sizeof(Int); ++i)
      value |= static_cast<Int>(static_cast<unsigned char>(bytes_[at_ + i])) << (8 * i);
    at_ += sizeof(Int);
    return value;
  }
  std::string_view take(std::uint64_t count, const char* what) {
    need(count, what);
    const std::string_view view(bytes_.data() + at_, static_cast<std::size_t>(count));
    at_ += static_cast<std::size_t>(count);
    return view;
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  void need(std::uint64_t count, const char* what) const {
    if (count > bytes_.size() - at_)
      throw RunFolderTransferError("packed run folder ends inside " + std::string(what) + " (byte " +
                                   std::to_string(at_) + " of " + std::to_string(bytes_.size()) + ")");
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

bool skipped_file(const fs::path& relative) {
  const std::string name = relative.filename().string();
  return name == ".lock" || (name.size() > 4 && name.ends_with(".tmp"));
}

// A packed path must stay inside the run folder: relative, no "." / ".." / empty components.
fs::path checked_relative_path(std::string_view text) {
  if (text.empty() || text.front() == '/')
    throw RunFolderTransferError("packed run folder has a bad path '" + std::string(text) + "'");
  const fs::path path{std::string(text)};
  for (const auto& part : path) {
    const std::string p = part.string();
    if (p.empty() || p == "." || p == "..")
      throw RunFolderTransferError("packed run folder has a path leaving the folder: '" + std::string(text) + "'");
  }
  return path;
}

void remove_folder(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) throw FileWriteError(dir.string() + ": cannot remove: " + ec.message());
}

}  // namespace

std::string pack_run_folder(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
      const fs::path relative = fs::relative(it->path(), dir, ec);
      if (!skipped_file(relative)) files.push_back(relative);
    }
    if (ec) throw FileWriteError(dir.string() + ": cannot list the run folder: " + ec.message());
  }
  std::string out(kMagic, kMagicBytes);
  put<std::uint32_t>(out, static_cast<std::uint32_t>(files.size()));
  for (const auto& relative : files) {
    const std::string name = relative.generic_string();
    // Whatever replaced a listed file since (a FIFO, a device) is refused by name, not waited on.
    const std::string bytes = read_regular_file(dir / relative, ReadableFile::kNoSizeLimit, "run file");
    put<std::uint32_t>(out, static_cast<std::uint32_t>(name.size()));
    out += name;
    put<std::uint64_t>(out, bytes.size());
    out += bytes;
  }
  return out;
}

void install_run_folder(const std::string& packed, const fs::path& final_dir) {
  const fs::path name = final_dir.filename();
  const fs::path incoming = final_dir.parent_path() / ("." + name.string() + ".incoming");
  const fs::path replaced = final_dir.parent_path() / ("." + name.string() + ".replaced");

  Reader reader(packed);
  if (reader.take(kMagicBytes, "the header") != std::string_view(kMagic, kMagicBytes))
    throw RunFolderTransferError("not a packed run folder (bad magic)");
  const auto count = reader.get<std::uint32_t>();
  remove_folder(incoming);  // left over from an earlier attempt that died
  try {
    for (std::uint32_t i = 0; i < count; ++i) {
      const auto path_bytes = reader.get<std::uint32_t>();
      if (path_bytes > kMaxPathBytes)
        throw RunFolderTransferError("packed run folder has a path of " + std::to_string(path_bytes) + " bytes");
      const fs::path relative = checked_relative_path(reader.take(path_bytes, "a path"));
      const auto size = reader.get<std::uint64_t>();
      const std::string_view bytes = reader.take(size, "a file");
      std::error_code ec;
      fs::create_directories((incoming / relative).parent_path(), ec);
      if (ec) throw FileWriteError((incoming / relative).parent_path().string() + ": cannot create: " + ec.message());
      write_file_atomically(incoming / relative, bytes);
    }
    if (!reader.done()) throw RunFolderTransferError("packed run folder has bytes after its last file");
    std::error_code ec;
    fs::create_directories(incoming, ec);  // a run folder without files still replaces the old one
    if (ec) throw FileWriteError(incoming.string() + ": cannot create: " + ec.message());

    const RunFolderLock lock(final_dir);  // no `train` may be writing the folder we replace
    remove_folder(replaced);
    fs::rename(final_dir, replaced, ec);
    if (ec) throw FileWriteError(final_dir.string() + ": cannot move aside: " + ec.message());
    fs::rename(incoming, final_dir, ec);
    if (ec) {
      std::error_code ignored;
      fs::rename(replaced, final_dir, ignored);  // put the old folder back
      throw FileWriteError(final_dir.string() + ": cannot move into place: " + ec.message());
    }
    remove_folder(replaced);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(incoming, ignored);
    throw;
  }
}

}  // namespace sinklab::cluster
