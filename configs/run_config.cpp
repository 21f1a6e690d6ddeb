#include "configs/run_config.h"

namespace sinklab {

int resolved_head_dim(const ModelConfig& model) {
  switch (model.head_dim.mode) {
    case HeadDimMode::full: return model.d_model;
    case HeadDimMode::split: return model.heads > 0 ? model.d_model / model.heads : 0;
    case HeadDimMode::fixed: return model.head_dim.size;
  }
  return model.d_model;
}

int resolved_trigger_max(const TaskConfig& task) {
  return task.trigger_max == -1 ? task.seq_len - 1 : task.trigger_max;
}

TargetKind resolved_target(const TaskConfig& task, bool residual_model) {
  if (task.target != TargetKind::automatic) return task.target;
  return residual_model ? TargetKind::residual : TargetKind::mean;
}

}  // namespace sinklab
