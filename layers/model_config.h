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
enum class Activation : uint8_t { gelu, relu, gelu_tanh, silu };
enum class InitKind : uint8_t { normal, xavier, kaiming };
enum class Positional : uint8_t { none, learned, sinusoidal, rope };
enum class InputKind : uint8_t { vectors, tokens };
enum class ScaleKind : uint8_t { none, inv_sqrt_head_dim, temperature };
enum class HeadDimMode : uint8_t { full, split, fixed };
// Which coordinates of a head RoPE turns together: (2j, 2j+1) (Su et al.; sinklab's own models) or
// (j, j + R/2) (the "rotate_half" form of GPT-NeoX, Llama, Mistral and Qwen checkpoints).
enum class RopePairing : uint8_t { interleaved, halves };
// How a checkpoint stretches RoPE's frequencies for longer contexts: none; linear (every frequency / factor);
// llama3 (Llama-3.1's: low frequencies / factor, high ones kept, a smooth blend between).
enum class RopeScaling : uint8_t { none, linear, llama3 };
// A bias switch of one group of Linear layers: follow model.bias, or on / off regardless.
enum class BiasSwitch : uint8_t { as_model, on, off };

template <>
struct EnumNames<NormKind> {
  static constexpr std::array<std::string_view, 3> values{"none", "layer_norm", "rms_norm"};
};
template <>
struct EnumNames<Activation> {
  static constexpr std::array<std::string_view, 4> values{"gelu", "relu", "gelu_tanh", "silu"};
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
struct EnumNames<RopePairing> {
  static constexpr std::array<std::string_view, 2> values{"interleaved", "halves"};
};
template <>
struct EnumNames<RopeScaling> {
  static constexpr std::array<std::string_view, 3> values{"none", "linear", "llama3"};
};
template <>
struct EnumNames<BiasSwitch> {
  static constexpr std::array<std::string_view, 3> values{"as_model", "on", "off"};
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
  // RMSNorm (model.norm_eps) over the head width of every query and key head before RoPE, a gain [D]
  // shared by the heads (Qwen3).
  bool qk_norm = false;
  // Sliding window: query i attends keys j with i - window < j <= i; 0 = every earlier key (Mistral).
  int window = 0;
  BiasSwitch qkv_bias = BiasSwitch::as_model;  // W_q, W_k, W_v (Qwen2: on with model.bias false)
  BiasSwitch out_bias = BiasSwitch::as_model;  // W_O
  bool operator==(const AttentionConfig&) const = default;
};

// RoPE's angles: position t turns pair j by t * inv_freq[j], inv_freq[j] = theta^(-2j/R) then scaled.
struct RopeConfig {
  double theta = 10000;
  int dims = 0;  // R, the rotated leading coordinates of each head (even); 0 = the whole head
  RopePairing pairing = RopePairing::interleaved;
  RopeScaling scaling = RopeScaling::none;
  double factor = 1;            // linear, llama3
  double low_freq_factor = 1;   // llama3
  double high_freq_factor = 4;  // llama3
  int original_max_positions = 8192;  // llama3: the context the frequencies were trained for
  bool operator==(const RopeConfig&) const = default;
};

struct ModelConfig {
  int d_model = 16;
  int layers = 1;
  int heads = 1;
  // Key/value heads (grouped-query attention): query head h reads key/value head h / (heads / kv_heads);
  // 0 = heads (multi-head attention).
  int kv_heads = 0;
  HeadDim head_dim;
  bool residual = false;
  NormKind norm = NormKind::none;
  double norm_eps = 1e-5;  // inside the square root of every norm
  // x <- x + Attn(N1(x)) + MLP(N2(x)) from the same x (GPT-NeoX / Pythia), instead of one after the other.
  bool parallel_residual = false;
  int mlp_hidden = 0;  // 0 = no MLP
  Activation mlp_activation = Activation::gelu;
  // fc2(act(fc1 x) * up x): a gated MLP (SwiGLU with silu: Llama, Mistral, Qwen), parameter mlp.up.
  bool mlp_gated = false;
  bool bias = false;
  BiasSwitch mlp_bias = BiasSwitch::as_model;          // fc1, up, fc2
  BiasSwitch output_head_bias = BiasSwitch::as_model;  // the untied output head
  InitKind init = InitKind::normal;
  double init_std = 0.02;
  Positional positional = Positional::none;
  // Learned positions: position t reads row t + position_offset of the table (OPT's 2).
  int position_offset = 0;
  RopeConfig rope;
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
// model.kv_heads with 0 resolved to model.heads.
int resolved_kv_heads(const ModelConfig& model);
// A bias switch resolved against model.bias.
bool resolved_bias(BiasSwitch s, bool model_bias);

}  // namespace sinklab
