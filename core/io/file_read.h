#pragma once
// Bounded reads of files a user may point at (checkpoints, run folders, arrays, configs): a directory,
// a FIFO, a device such as /dev/zero, a file larger than its format allows, or one that would not fit
// in the memory left is refused by name before it is read. Every reader of a user-reachable file opens
// it through ReadableFile (whole files through read_regular_file).
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace sinklab {

class FileReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An open regular file of at most max_bytes bytes, closed on destruction. Opened with O_NONBLOCK, so a
// FIFO is refused at once instead of waiting for a writer, then checked with fstat. `what` names the
// kind of file in every refusal: "<what> <path>: is not a regular file".
class ReadableFile {
 public:
  static constexpr uint64_t kNoSizeLimit = UINT64_MAX;
  ReadableFile(const std::filesystem::path& path, const std::string& what, uint64_t max_bytes);
  ReadableFile(const ReadableFile&) = delete;
  ReadableFile& operator=(const ReadableFile&) = delete;
  ~ReadableFile();

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }  // as fstat saw it when opened
  const std::string& name() const { return name_; }  // "<what> <path>"

  // Bytes [offset, offset + length); "truncated" when they lie beyond size(), "shrank" when the file
  // ends early. A read too large for the memory left is refused before anything is allocated.
  std::string read(uint64_t offset, uint64_t length) const;
  // The same into `out`, which holds length bytes.
  void read_into(uint64_t offset, uint64_t length, char* out) const;
  // Refuses (FileReadError naming the file) to hold `bytes` more in memory when the machine has less
  // left (core/system_memory.h); readers call it with the size of what they build from the file.
  void check_memory_for(uint64_t bytes, const std::string& purpose) const;
  [[noreturn]] void fail(const std::string& why) const;

 private:
  std::string name_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// The whole content of a regular file of at most max_bytes bytes. `what` names the kind of file in
// the message ("checkpoint", "summary"): "<what> <path>: is a directory".
std::string read_regular_file(const std::filesystem::path& path, uint64_t max_bytes, const std::string& what);

// The size of a regular file, refused as read_regular_file refuses it (no size limit).
uint64_t regular_file_size(const std::filesystem::path& path, const std::string& what);
// Bytes [offset, offset + length) of a regular file, for formats read piece by piece (a multi-GB
// safetensors file). Throws FileReadError when the file ends before offset + length.
std::string read_file_range(const std::filesystem::path& path, uint64_t offset, uint64_t length,
                            const std::string& what);

}  // namespace sinklab
