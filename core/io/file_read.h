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

}  // namespace sinklab
