#include "layers/norm_layer.h"

#include <algorithm>
#include <stdexcept>

#include "core/ops/normalization.h"

namespace sinklab {

NormLayer::NormLayer(ParameterStore& store, std::string prefix, NormKind kind, int width, float eps)
    : Module(store, std::move(prefix)), kind_(kind), eps_(eps) {
  if (kind == NormKind::none) throw std::invalid_argument(this->prefix() + ": NormLayer with kind none");
  weight_ = declare("weight", {width});
  if (kind == NormKind::layer_norm) bias_ = declare("bias", {width});
}

void NormLayer::initialize_own(Rng&) {
  Tensor w = param(weight_);
  std::fill_n(w.data(), w.numel(), 1.0f);
  if (bias_ >= 0) {
    Tensor b = param(bias_);
    std::fill_n(b.data(), b.numel(), 0.0f);
  }
}

Tensor NormLayer::forward(Graph& g, const Tensor& x) const {
  if (kind_ == NormKind::layer_norm) return layer_norm(g, x, param(weight_), param(bias_), eps_);
  return rms_norm(g, x, param(weight_), eps_);
}

}  // namespace sinklab
