#pragma once
// The model as plain data: what configs/ fills from the `model:` section and layers/ builds from.
// Member initializers are the documented defaults (docs/config.md). `head_dim: full` stays symbolic
// (resolved_head_dim() gives the number), so re-loading a written config with another d_model keeps
// its meaning.
#include <cstdint>
#include <string>

#include "core/options/enum_names.h"
#include "core/options/option_spec.h"

namespace sinklab {

enum class NormKind : uint8_t { none, layer_norm, rms_norm };
enum class Activation : uint8_t { gelu, relu, gelu_tanh };
enum class InitKind : uint8_t { normal, xavier, kaiming };
enum class Positional : uint8_t { none, learned, sinusoidal, rope };
enum class InputKind : uint8_t { vectors, tokens };
enum class ScaleKind : uint8_t { none, inv_sqrt_head_dim, temperature };
enum class HeadDimMode : uint8_t { full, split, fixed };

template <>
struct EnumNames<NormKind> {
  static constexpr std::array<std::string_view, 3> values{"none", "layer_norm", "rms_norm"};
};
template <>
struct EnumNames<Activation> {
  static constexpr std::array<std::string_view, 3> values{"gelu", "relu", "gelu_tanh"};
};
template <>
struct EnumNames<InitKind> {
  static constexpr std::array<std::string_view, 3> values{"normal", "xavier", "kaiming"};
};
template <>
struct EnumNames<Positional> {
  static constexpr std::array<std::string_view, 4> values{"none", "learned", "sinusoidal", "rope"};
};
template <>
struct EnumNames<InputKind> {
  static constexpr std::array<std::string_view, 2> values{"vectors", "tokens"};
};
template <>
struct EnumNames<ScaleKind> {
  static constexpr std::array<std::string_view, 3> values{"none", "inv_sqrt_head_dim", "temperature"};
};

// model.head_dim: "full" (= d_model, the paper's), "split" (= d_model / heads) or a fixed size.
struct HeadDim {
  HeadDimMode mode = HeadDimMode::full;
  int size = 0;  // only meaningful when mode == fixed
  bool operator==(const HeadDim&) const = default;
};

// A normalizer plug-in by registry name, with its own options (layers/normalizers/normalizer_registry.h).
struct NormalizerConfig {
  std::string name = "softmax";
  OptionValues options;  // unset keys take the normalizer's declared defaults
  bool operator==(const NormalizerConfig&) const = default;
};

struct AttentionConfig {
  ScaleKind scale = ScaleKind::none;
  double temperature = 1.0;  // logits are divided by it when scale == temperature
  NormalizerConfig normalizer;
  bool key_bias = false;  // a learned key per head with value 0 (layers/key_bias_token.h)
  bool operator==(const AttentionConfig&) const = default;
};

struct ModelConfig {
  int d_model = 16;
  int layers = 1;
  int heads = 1;
  HeadDim head_dim;
  bool residual = false;
  NormKind norm = NormKind::none;
  int mlp_hidden = 0;  // 0 = no MLP
  Activation mlp_activation = Activation::gelu;
  bool bias = false;
  InitKind init = InitKind::normal;
  double init_std = 0.02;
  Positional positional = Positional::none;
  InputKind input = InputKind::vectors;
  bool input_projection = false;
  int vocab_size = 0;
  bool output_head = false;
  // The output head reuses the token embedding: logits = h E^T with E [vocab_size, d_model], no bias
  // and no parameter of its own (GPT-2's lm_head). Needs input: tokens and output_head.
  bool tie_embeddings = false;
  AttentionConfig attention;
  // A safetensors file whose tensors replace the initialized parameters (models/weight_files.h);
  // "" = none. The layers never read it.
  std::string init_from;
  bool operator==(const ModelConfig&) const = default;
};

// The width of one attention head.
int resolved_head_dim(const ModelConfig& model);

}  // namespace sinklab
