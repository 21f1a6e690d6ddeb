#pragma once
// NumPy .npz archives, as numpy.savez writes them: a zip of one "<name>.npy" per tensor (float32, C
// order; run_files/npy.h), stored uncompressed, plus any text entries (the export's "config.yaml",
// which numpy.load returns as bytes). The zip container comes from libzip; every entry gets the same
// fixed date (1980-01-01), so equal input gives equal bytes.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "run_files/named_tensor.h"

namespace sinklab {

class NpzError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using NpzTextEntries = std::vector<std::pair<std::string, std::string>>;  // entry name, content

// The archive's bytes: tensors first ("<name>.npy", in the given order), then the text entries.
// Throws NpzError naming `where` for an empty or repeated entry name or values that do not fill a shape.
std::string encode_npz(const std::vector<NamedTensor>& tensors, const NpzTextEntries& texts, const std::string& where);
// Writes the archive atomically (core/io/file_write.h).
void write_npz(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors, const NpzTextEntries& texts);

}  // namespace sinklab
