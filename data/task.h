#pragma once
// The task interface: a task fills caller-owned batch buffers with freshly sampled sequences, their
// targets and the role of every position (which sink statistics use to split trigger and other rows).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "configs/run_config.h"
#include "core/rng.h"

namespace sinklab {

enum class TokenRole : uint8_t { bos = 0, trigger = 1, other = 2 };
enum class Split { train, eval };

// Caller-owned buffers, row-major.
struct BatchView {
  float* inputs;               // [batch, seq_len, input_dim]
  float* targets;              // [batch, seq_len, output_dim]
  TokenRole* roles;            // [batch, seq_len]
  int32_t* trigger_positions;  // [batch]; -1 when a task has no trigger
};

// The read-only twin, for data owned by someone else (EvalSet).
struct ConstBatchView {
  const float* inputs;
  const float* targets;
  const TokenRole* roles;
  const int32_t* trigger_positions;
};

// A task built from a bad TaskConfig, or asked for something it cannot do.
class TaskError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string_view name() const = 0;
  virtual int seq_len() const = 0;
  virtual int input_dim() const = 0;
  virtual int output_dim() const = 0;
  // Fills `batch` fresh samples; Split::eval uses the fixed evaluation trigger. Sample b only depends
  // on the generator state after samples 0..b-1, so one call of 2n equals two calls of n.
  virtual void sample(int batch, Rng& rng, Split split, BatchView out) const = 0;
};

// Builds the task `config.name`; an unknown name throws TaskError listing the known ones.
// `residual_model` resolves `target: auto`.
std::unique_ptr<Task> make_task(const TaskConfig& config, bool residual_model);
std::vector<std::string> task_names();

}  // namespace sinklab
