#pragma once
// LayerNorm or RMSNorm over the last axis, with a learned gain (and, for LayerNorm, a bias).
#include "layers/model_config.h"
#include "core/graph.h"
#include "layers/module.h"

namespace sinklab {

class NormLayer : public Module {
 public:
  NormLayer(ParameterStore& store, std::string prefix, NormKind kind, int width, float eps = 1e-5f);
  Tensor forward(Graph& g, const Tensor& x) const;  // x [..., width]

 protected:
  void initialize_own(Rng& rng) override;

 private:
  NormKind kind_;
  float eps_;
  ParameterStore::Id weight_;
  ParameterStore::Id bias_ = -1;
};

}  // namespace sinklab
