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

int resolved_kv_heads(const ModelConfig& model) { return model.kv_heads > 0 ? model.kv_heads : model.heads; }

bool resolved_bias(BiasSwitch s, bool model_bias) {
  switch (s) {
    case BiasSwitch::as_model: return model_bias;
    case BiasSwitch::on: return true;
    case BiasSwitch::off: return false;
  }
  return model_bias;
}

}  // namespace sinklab
