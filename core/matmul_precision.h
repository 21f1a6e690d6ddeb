#pragma once
// The precision of a graph's matrix products (train.precision). float32: float32 inputs and products.
// bf16: inputs rounded to bf16 (round to nearest even), float32 accumulation and output
// (core/kernels/matmul_bf16.h). Only products read it: master weights, optimizer state, norms, softmax,
// losses and attention's own per-(head, sample) kernels stay float32.
#include <array>
#include <cstdint>
#include <string_view>

#include "core/options/enum_names.h"

namespace sinklab {

enum class MatmulPrecision : uint8_t { float32, bf16 };

template <>
struct EnumNames<MatmulPrecision> {
  static constexpr std::array<std::string_view, 2> values{"float32", "bf16"};
};

}  // namespace sinklab
