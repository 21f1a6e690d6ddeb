#include "layers/model_config.h"

namespace sinklab {

int resolved_head_dim(const ModelConfig& model) {
  switch (model.head_dim.mode) {
    case HeadDimMode::full: return model.d_model;
    case HeadDimMode::split: return model.heads > 0 ? model.d_model / model.heads : 0;
    case HeadDimMode::fixed: return model.head_dim.size;
  }
  return model.d_model;
}

}  // namespace sinklab
