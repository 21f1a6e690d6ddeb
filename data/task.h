#pragma once
// The task contract. A task declares what it feeds the model and how it is scored (TaskShape: input
// kind and widths, loss), and fills caller-owned batch buffers with freshly sampled sequences, their
// targets and the role of every position (core/observe/position_roles.h), from which the sink
// statistics are computed for any task. Tasks are plug-ins: see data/task_registration.h.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/rng.h"

namespace sinklab {

enum class Split { train, eval };
enum class TaskInput : uint8_t { vectors, tokens };
// mse: mean squared error against target vectors (metrics: MSE, max |pred - y|);
// cross_entropy: next-token cross-entropy against target ids over the output_dim classes, positions
// with target -1 not scored (metrics: loss in nats, accuracy).
enum class TaskLoss : uint8_t { mse, cross_entropy };

struct TaskShape {
  TaskInput input = TaskInput::vectors;
  int seq_len = 0;     // positions per sample, BOS included
  int input_dim = 0;   // vector width, or the number of token ids for token inputs
  int output_dim = 0;  // target vector width, or the number of classes for cross_entropy
  TaskLoss loss = TaskLoss::mse;
  std::string width_key;  // the config key that sets input_dim / output_dim, for messages ("task.dim")
  // How the width follows from width_key when it is not its value, for messages ("the corpus has 63
  // distinct bytes + BOS"); empty when width_key's value is the width.
  std::string width_text;
};

// The shape of a next-token task over `vocab_size` ids (BOS included): token inputs, cross-entropy
// over the same ids. `width_key` / `width_text` as in TaskShape.
TaskShape next_token_shape(int seq_len, int vocab_size, std::string width_key, std::string width_text = {});

// Caller-owned buffers, row-major; a pointer the shape does not use is null.
struct BatchView {
  float* inputs;        // [batch, seq_len, input_dim] for vector inputs
  int32_t* input_ids;   // [batch, seq_len] for token inputs
  float* targets;       // [batch, seq_len, output_dim] for mse
  int32_t* target_ids;  // [batch, seq_len] for cross_entropy; -1 = not scored
  uint8_t* roles;       // [batch, seq_len] position_role flags
};

// The read-only twin, for data owned by someone else (EvalSet).
struct ConstBatchView {
  const float* inputs;
  const int32_t* input_ids;
  const float* targets;
  const int32_t* target_ids;
  const uint8_t* roles;
};

// A task built from bad options, or asked for something it cannot do. `keys` names the config keys
// involved (the loader reports the first one the user set).
class TaskError : public std::runtime_error {
 public:
  explicit TaskError(const std::string& message, std::vector<std::string> keys = {})
      : std::runtime_error(message), keys_(std::move(keys)) {}
  const std::vector<std::string>& keys() const { return keys_; }

 private:
  std::vector<std::string> keys_;
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string_view name() const = 0;
  virtual TaskShape shape() const = 0;
  // Fills `batch` fresh samples. Sample b only depends on the generator state after samples 0..b-1,
  // so one call of 2n equals two calls of n. Allocates nothing.
  virtual void sample(int batch, Rng& rng, Split split, BatchView out) const = 0;

  // The active row every evaluation sample shares, when the task fixes one (the trigger task's
  // eval_trigger), else -1; run summaries and reports label attention maps with it.
  virtual int fixed_eval_row() const { return -1; }

  // Reference numbers the task knows about itself, by name (e.g. bigram_backcopy's markov_entropy, the
  // best reachable loss on its no-op rows); run summaries record them under task_baselines.
  virtual std::vector<std::pair<std::string, double>> baselines() const { return {}; }

  // A token id's text for people (attention snapshots label their axes with it); empty when the ids
  // stand for nothing readable (synthetic token tasks), so a page shows the id.
  virtual std::string token_label(int32_t id) const {
    (void)id;
    return {};
  }

  int seq_len() const { return shape().seq_len; }
  int input_dim() const { return shape().input_dim; }
  int output_dim() const { return shape().output_dim; }
};

// Buffers for `batch` samples of a task's shape, with a view onto them (training batches, eval sets).
struct BatchBuffers {
  BatchBuffers(const TaskShape& shape, int batch);
  BatchView view();
  ConstBatchView view(int first, int count) const;  // samples first .. first + count - 1, unchecked
  TaskShape shape;
  int batch;
  std::vector<float> inputs, targets;
  std::vector<int32_t> input_ids, target_ids;
  std::vector<uint8_t> roles;
};

}  // namespace sinklab
