#pragma once
// Bounded reads of files a user may point at (checkpoints, run folders): a directory, a device such
// as /dev/zero or a file larger than its format allows is refused by name before it is read.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace sinklab {

class FileReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The whole content of a regular file of at most max_bytes bytes. `what` names the kind of file in
// the message ("checkpoint", "summary"): "<what> <path>: is a directory".
std::string read_regular_file(const std::filesystem::path& path, uint64_t max_bytes, const std::string& what);

// The size of a regular file, refused as read_regular_file refuses it (no size limit).
uint64_t regular_file_size(const std::filesystem::path& path, const std::string& what);
// Bytes [offset, offset + length) of a regular file, for formats read piece by piece (a multi-GB
// safetensors file). Throws FileReadError when the file ends before offset + length.
std::string read_file_range(const std::filesystem::path& path, uint64_t offset, uint64_t length, const std::string& what);

}  // namespace sinklab
