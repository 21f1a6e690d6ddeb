#pragma once
// IEEE 754 binary16 (NumPy's float16) to and from float: snapshot files may store their maps as
// float16 (run_files/npz_reader.h), and the explorer page keeps them that size when no value changes.
#include <cstdint>
#include <optional>

namespace sinklab {

float half_to_float(uint16_t half);

// The binary16 bits of `value` when it is exactly representable as one (±0, ±inf, NaN, normal and
// subnormal halves), else nothing: no rounding, so decoding gives back exactly `value`.
std::optional<uint16_t> exact_half(float value);

}  // namespace sinklab
