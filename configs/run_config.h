#pragma once
// Plain structs describing one whole training run. Member initializers are the documented defaults
// (docs/config.md); configs/config_loader.h fills them from YAML and validates them.
//
// Values are stored as written: `task.trigger_max: -1`, `task.target: auto` and `model.head_dim: full`
// stay symbolic so that re-loading to_yaml() with a different seq_len or d_model still means the same
// thing. Use the resolved_* helpers below to get concrete numbers.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sinklab {

enum class NormKind : uint8_t { none, layer_norm, rms_norm };
enum class Activation : uint8_t { gelu, relu };
enum class InitKind : uint8_t { normal, xavier, kaiming };
enum class Positional : uint8_t { none, learned, sinusoidal, rope };
enum class InputKind : uint8_t { vectors, tokens };
enum class ScaleKind : uint8_t { none, inv_sqrt_head_dim, temperature };
// What a relu-style normalizer divides row i by (see trigger-sinks.md section 3).
enum class RowDivisor : uint8_t { visible_non_bos, visible, seq_len, none };
enum class HeadDimMode : uint8_t { full, split, fixed };
enum class TargetKind : uint8_t { automatic, mean, residual };  // `automatic` is spelled "auto" in YAML
enum class OptimizerKind : uint8_t { adam, adamw, sgd };
enum class ScheduleKind : uint8_t { constant, warmup, cosine };

// YAML spelling of every enum value, indexed by the enum's underlying value.
template <typename E>
struct EnumNames;
template <>
struct EnumNames<NormKind> {
  static constexpr std::array<std::string_view, 3> values{"none", "layer_norm", "rms_norm"};
};
template <>
struct EnumNames<Activation> {
  static constexpr std::array<std::string_view, 2> values{"gelu", "relu"};
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
template <>
struct EnumNames<RowDivisor> {
  static constexpr std::array<std::string_view, 4> values{"visible_non_bos", "visible", "seq_len", "none"};
};
template <>
struct EnumNames<TargetKind> {
  static constexpr std::array<std::string_view, 3> values{"auto", "mean", "residual"};
};
template <>
struct EnumNames<OptimizerKind> {
  static constexpr std::array<std::string_view, 3> values{"adam", "adamw", "sgd"};
};
template <>
struct EnumNames<ScheduleKind> {
  static constexpr std::array<std::string_view, 3> values{"constant", "warmup", "cosine"};
};

template <typename E>
  requires requires { EnumNames<E>::values; }
constexpr std::string_view to_string(E value) {
  return EnumNames<E>::values[static_cast<std::size_t>(value)];
}

// model.head_dim: "full" (= d_model, the paper's), "split" (= d_model / heads) or a fixed size.
struct HeadDim {
  HeadDimMode mode = HeadDimMode::full;
  int size = 0;  // only meaningful when mode == fixed
  bool operator==(const HeadDim&) const = default;
};

struct NormalizerConfig {
  std::string name = "softmax";                         // a name from the normalizer registry (layers/)
  RowDivisor divisor = RowDivisor::visible_non_bos;     // relu only
  double temperature = 1.0;                             // softmax only
  bool operator==(const NormalizerConfig&) const = default;
};

struct AttentionConfig {
  ScaleKind scale = ScaleKind::none;
  double temperature = 1.0;  // logits are divided by it when scale == temperature
  NormalizerConfig normalizer;
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
  AttentionConfig attention;
  bool operator==(const ModelConfig&) const = default;
};

struct TaskConfig {
  std::string name = "trigger_conditional";
  int dim = 16;
  int seq_len = 16;  // BOS included
  int trigger_min = 2;
  int trigger_max = -1;  // -1 = seq_len - 1
  int eval_trigger = 7;
  TargetKind target = TargetKind::automatic;
  int eval_samples = 1000;
  uint64_t eval_seed = 1234567;
  bool operator==(const TaskConfig&) const = default;
};

struct OptimizerConfig {
  OptimizerKind name = OptimizerKind::adam;
  double lr = 1.0e-3;
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1.0e-8;
  double weight_decay = 0.0;
  double momentum = 0.0;  // sgd only
  ScheduleKind schedule = ScheduleKind::constant;
  int warmup_steps = 0;
  double min_lr = 0.0;
  double clip_grad_norm = 0.0;  // 0 = off
  bool operator==(const OptimizerConfig&) const = default;
};

struct TrainConfig {
  int batch_size = 128;
  int max_steps = 50000;
  double stop_max_abs_error = 5.0e-3;  // 0 = off
  double stop_loss = 0.0;              // 0 = off
  int eval_every = 500;                // 0 = only at the end
  int log_every = 100;
  int checkpoint_every = 0;          // 0 = by wall time only
  double checkpoint_seconds = 60.0;  // 0 = by steps only; both 0 = only the first and the final checkpoint
  bool operator==(const TrainConfig&) const = default;
};

struct AnalysisConfig {
  double sink_eps = 0.3;
  int eval_attention_samples = 1000;
  bool operator==(const AnalysisConfig&) const = default;
};

struct RunConfig {
  std::string name;  // the loader fills in the config file's stem when empty
  uint64_t seed = 0;
  int threads = 1;
  ModelConfig model;
  TaskConfig task;
  OptimizerConfig optimizer;
  TrainConfig train;
  AnalysisConfig analysis;
  bool operator==(const RunConfig&) const = default;
};

// The width of one attention head.
int resolved_head_dim(const ModelConfig& model);
// trigger_max with -1 replaced by seq_len - 1.
int resolved_trigger_max(const TaskConfig& task);
// mean or residual (never automatic): auto means residual exactly when the model is residual.
TargetKind resolved_target(const TaskConfig& task, bool residual_model);

}  // namespace sinklab
