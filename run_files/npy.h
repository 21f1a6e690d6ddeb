#pragma once
// Minimal float32 .npy files (NumPy format 1.0, dtype '<f4', C order), so saved attention maps open
// with numpy.load. Written by hand because no Debian C++ package provides it. The reader accepts
// format versions 1.0 to 3.0 but only little-endian float32 in C order.
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace sinklab {

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;  // row-major, product(shape) elements
};

// The bytes of a .npy file holding data (product(shape) floats, row-major); `where` names it in errors.
std::string encode_npy(std::span<const float> data, const std::vector<int64_t>& shape, const std::string& where);

// Writes data (product(shape) floats, row-major) to path, replacing the file.
void write_npy(const std::filesystem::path& path, std::span<const float> data, const std::vector<int64_t>& shape);

// Reads a file written by write_npy or numpy.save; errors name the file and what is wrong.
NpyArray read_npy(const std::filesystem::path& path);

}  // namespace sinklab
