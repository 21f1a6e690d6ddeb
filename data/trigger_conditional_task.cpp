#include "data/trigger_conditional_task.h"

#include "core/kernels/elementwise_layout.h"
#include "core/observe/position_roles.h"
#include "core/rng_lanes.h"
#include "data/bos_option.h"

#include <algorithm>
#include <array>
#include <string>

namespace sinklab {
namespace {

std::string str(int v) { return std::to_string(v); }

void require(bool ok, const std::string& message, std::vector<std::string> keys) {
  if (!ok) throw TaskError(message, std::move(keys));
}

}  // namespace

TriggerConditionalTask::TriggerConditionalTask(const TriggerTaskSettings& s, bool residual_model)
    : dim_(s.dim),
      seq_len_(s.seq_len),
      trigger_min_(s.trigger_min),
      trigger_max_(s.trigger_max == -1 ? s.seq_len - 1 : s.trigger_max),
      eval_trigger_(s.eval_trigger),
      residual_target_(s.target == TargetKind::automatic ? residual_model : s.target == TargetKind::residual),
      bos_(s.bos) {
  require(dim_ >= 4, "dim must be >= 4 (BOS flag, trigger flag, content, ordinary flag), got " + str(dim_),
          {"task.dim"});
  require(seq_len_ >= 3, "seq_len must be >= 3, got " + str(seq_len_), {"task.seq_len"});
  const int last = seq_len_ - 1;
  require(trigger_min_ >= 1 && trigger_min_ <= trigger_max_ && trigger_max_ <= last,
          "training triggers need trigger_min <= trigger_max <= seq_len - 1, but trigger_min is " + str(trigger_min_) +
              ", trigger_max " + str(s.trigger_max) + " and seq_len - 1 is " + str(last),
          {"task.trigger_max", "task.trigger_min", "task.seq_len"});
  require(eval_trigger_ >= 1 && eval_trigger_ <= last,
          "eval_trigger must be in 1 .. seq_len - 1 = " + str(last) + ", got " + str(eval_trigger_),
          {"task.eval_trigger", "task.seq_len"});
}

TaskShape TriggerConditionalTask::shape() const {
  TaskShape s;
  s.input = TaskInput::vectors;
  s.seq_len = seq_len_;
  s.input_dim = s.output_dim = dim_;
  s.loss = TaskLoss::mse;
  s.width_key = "task.dim";
  return s;
}

void TriggerConditionalTask::sample(int batch, Rng& rng, Split split, BatchView out) const {
  // Test first: building the message eagerly would allocate on every call.
  if (batch < 0) throw TaskError("trigger_conditional task: batch must be >= 0, got " + std::to_string(batch));
  const std::size_t rows = static_cast<std::size_t>(seq_len_) * static_cast<std::size_t>(dim_);
  const auto span = static_cast<uint64_t>(trigger_max_ - trigger_min_ + 1);
  constexpr int kLanes = RngLanes::kLanes;
  constexpr int kChunk = 256;  // samples whose seeds are drawn before their groups run in parallel
  const int d = dim_;
  // The task's rng gives every sample its trigger and stream seed in sample order (sequential, two
  // draws each); then groups of kLanes samples draw their content together (lane l = sample g0 + l),
  // the groups in parallel: the bits do not depend on the thread count.
  std::array<uint64_t, kChunk> seeds;
  std::array<int, kChunk> triggers;
  for (int c0 = 0; c0 < batch; c0 += kChunk) {
    const int chunk = std::min(kChunk, batch - c0);
    for (int s = 0; s < chunk; ++s) {
      const int j = split == Split::train ? trigger_min_ + static_cast<int>(rng.below(span)) : eval_trigger_;
      triggers[static_cast<size_t>(s)] = j;
      seeds[static_cast<size_t>(s)] = rng.next();
    }
    const int groups = (chunk + kLanes - 1) / kLanes;
    [[maybe_unused]] const bool parallel =
        groups > 1 && static_cast<int64_t>(chunk) * static_cast<int64_t>(rows) >= kernels::kParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
    for (int g = 0; g < groups; ++g) {
      const int g0 = c0 + g * kLanes;
      const int n = std::min(kLanes, c0 + chunk - g0);
      std::array<uint64_t, kLanes> lane_seeds{};
      for (int l = 0; l < n; ++l) lane_seeds[static_cast<size_t>(l)] = seeds[static_cast<size_t>(g0 - c0 + l)];
      RngLanes streams(lane_seeds);
      float* coordinates[kLanes];  // coordinates 2 .. d-2 of row i of each lane's sample
      for (int i = bos_ ? 1 : 0; i < seq_len_; ++i) {
        for (int l = 0; l < n; ++l)
          coordinates[l] = out.inputs + static_cast<std::size_t>(g0 + l) * rows + static_cast<std::size_t>(i) * d + 2;
        streams.uniform(-1.0f, 1.0f, d - 3, coordinates, n);
      }
      for (int l = 0; l < n; ++l) {
        const auto b = static_cast<std::size_t>(g0 + l);
        finish_sample(triggers[static_cast<size_t>(g0 - c0 + l)], out.inputs + b * rows, out.targets + b * rows,
                      out.roles + b * static_cast<std::size_t>(seq_len_));
      }
    }
  }
}

// One sequence whose content (coordinates 2..d-2 of rows 1..seq_len-1, or 0..seq_len-1 without BOS) is
// already drawn: the flags, roles and target. x and y are [seq_len, dim], roles [seq_len].
void TriggerConditionalTask::finish_sample(int trigger, float* x, float* y, uint8_t* roles) const {
  using namespace position_role;
  const int d = dim_;
  const int first = bos_ ? 1 : 0;  // the first ordinary position
  if (bos_) {
    std::fill(x, x + d, 0.0f);
    x[0] = 1.0f;
  }
  roles[0] = kSinkKey;
  for (int i = first; i < seq_len_; ++i) {
    float* row = x + static_cast<std::size_t>(i) * d;
    const bool is_trigger = i == trigger;
    row[0] = row[1] = row[d - 1] = 0.0f;
    row[is_trigger ? 1 : d - 1] = 1.0f;
    if (i > 0) roles[i] = is_trigger ? kActiveRow : kNoOpRow;
  }

  if (residual_target_) {
    std::copy(x, x + static_cast<std::size_t>(seq_len_) * d, y);
  } else {
    std::fill(y, y + static_cast<std::size_t>(seq_len_) * d, 0.0f);
  }
  // Mean of rows first..trigger, accumulated in double (each column in row order) so the target does not
  // depend on how the loop is vectorized; 16 columns at a time, row by row.
  float* target = y + static_cast<std::size_t>(trigger) * d;
  constexpr int kColumns = 16;
  for (int c0 = 0; c0 < d; c0 += kColumns) {
    const int width = std::min(kColumns, d - c0);
    double sum[kColumns] = {};
    for (int k = first; k <= trigger; ++k) {
      const float* row = x + static_cast<std::size_t>(k) * d + c0;
      for (int c = 0; c < width; ++c) sum[c] += row[c];
    }
    for (int c = 0; c < width; ++c) target[c0 + c] += static_cast<float>(sum[c] / (trigger - first + 1));
  }
}

TaskRegistration trigger_conditional_task_registration() {
  constexpr int64_t kMaxWidth = 65536, kMaxPosition = 65535;
  return {"trigger_conditional",
          "vectors with one trigger; the trigger row's target is the prefix mean (the sink paper's task)",
          {OptionSpec::integer("dim", 16, Bound::at_least(4).up_to(kMaxWidth),
                               "token vector width: BOS flag, trigger flag, dim - 3 content dims, ordinary flag"),
           OptionSpec::integer("trigger_min", 2, Bound::at_least(1).up_to(kMaxPosition),
                               "smallest training trigger position (0-indexed, inclusive)"),
           OptionSpec::integer("trigger_max", -1, Bound::at_least(-1).up_to(kMaxPosition),
                               "largest training trigger position (inclusive); -1 = seq_len - 1")
               .with_allowed_text("-1, or trigger_min .. seq_len - 1"),
           OptionSpec::integer("eval_trigger", 7, Bound::at_least(1).up_to(kMaxPosition),
                               "the fixed trigger position of the evaluation set (0-indexed)")
               .with_allowed_text("1 .. seq_len - 1"),
           OptionSpec::choice("target", {"auto", "mean", "residual"}, "auto",
                              "auto = residual when model.residual, else mean; mean: the prefix mean at the trigger "
                              "and 0 elsewhere; residual: x_i plus the mean at the trigger"),
           bos_option()},
          [](const TaskSettings& s) -> std::unique_ptr<Task> {
            const PluginOptions& o = s.options;
            TriggerTaskSettings t;
            t.dim = static_cast<int>(o.integer("dim"));
            t.seq_len = s.seq_len;
            t.trigger_min = static_cast<int>(o.integer("trigger_min"));
            t.trigger_max = static_cast<int>(o.integer("trigger_max"));
            t.eval_trigger = static_cast<int>(o.integer("eval_trigger"));
            t.target = static_cast<TargetKind>(o.choice_index("target"));
            t.bos = o.flag("bos");
            return std::make_unique<TriggerConditionalTask>(t, s.residual_model);
          }};
}

}  // namespace sinklab
