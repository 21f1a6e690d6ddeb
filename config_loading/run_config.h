#pragma once
// Plain structs describing one whole training run. Member initializers are the documented defaults
// (docs/config.md); config_loading/config_loader.h fills them from YAML and validates them. The model and
// task sections are the plain specs layers/ and data/ build from (layers/model_config.h,
// data/task_config.h); plug-in options live in their OptionValues.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/matmul_precision.h"
#include "core/options/enum_names.h"
#include "data/task_config.h"
#include "layers/model_config.h"

namespace sinklab {

enum class OptimizerKind : uint8_t { adam, adamw, sgd };
enum class ScheduleKind : uint8_t { constant, warmup, cosine };

template <>
struct EnumNames<OptimizerKind> {
  static constexpr std::array<std::string_view, 3> values{"adam", "adamw", "sgd"};
};
template <>
struct EnumNames<ScheduleKind> {
  static constexpr std::array<std::string_view, 3> values{"constant", "warmup", "cosine"};
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
  // The batch in this many equal shards, each a forward and backward of its own, their gradients summed
  // in shard order (train/sharded_gradient.h): what `train --mpi` splits over its ranks.
  int batch_shards = 1;
  int max_steps = 50000;
  double stop_max_abs_error = 5.0e-3;  // 0 = off
  double stop_loss = 0.0;              // 0 = off
  int eval_every = 500;                // 0 = only at the end
  int log_every = 100;
  int checkpoint_every = 0;          // 0 = by wall time only
  double checkpoint_seconds = 60.0;  // 0 = by steps only; both 0 = only the first and the final checkpoint
  MatmulPrecision precision = MatmulPrecision::float32;  // of the training steps' matmuls (core/matmul_precision.h)
  bool operator==(const TrainConfig&) const = default;
};

struct AnalysisConfig {
  double sink_eps = 0.3;
  int eval_attention_samples = 1000;
  // Attention snapshots (docs/analysis.md, attention_snapshots.npz): every 16 steps at first, the
  // interval doubling whenever 100 are kept, so a run of any length keeps 50-100; 0 = none.
  int snapshot_every = 16;
  int snapshot_limit = 100;
  int snapshot_samples = 128;  // evaluation inputs in each snapshot's mean map (unset: also <= batch, eval_samples)
  int gu_windows = 100;  // text_lm: Gu et al.'s protocol windows, with BOS and without, per evaluation; 0 = none
  // Evaluation inputs of the extreme-token statistics, at most eval_attention_samples: their medians over
  // every |h| made them most of an evaluation of the paper's configs at 1,000 inputs.
  int extreme_token_samples = 64;
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

}  // namespace sinklab
