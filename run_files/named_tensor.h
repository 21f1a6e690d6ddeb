#pragma once
// A float32 tensor with a name, as weight files (safetensors, npz) hold them: row-major values and
// the shape, in the order a file lists them.
#include <cstdint>
#include <string>
#include <vector>

namespace sinklab {

struct NamedTensor {
  std::string name;            // a parameter's dotted name, e.g. "blocks.0.attn.w_q.weight"
  std::vector<int64_t> shape;  // [] is a scalar with one value
  std::vector<float> values;   // row-major, product(shape) values
  bool operator==(const NamedTensor&) const = default;
};

// "[2, 3, 4]": a shape as the messages about files write it.
inline std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace sinklab
