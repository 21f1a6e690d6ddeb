#pragma once
// y = x W^T + b with W [out, in] (PyTorch's layout, so golden files map 1:1).
#include "layers/model_config.h"
#include "core/graph.h"
#include "layers/module.h"

namespace sinklab {

struct InitSpec {
  InitKind kind = InitKind::normal;
  float std = 0.02f;  // for InitKind::normal
};

class Linear : public Module {
 public:
  Linear(ParameterStore& store, std::string prefix, int in, int out, bool bias, InitSpec init);
  Tensor forward(Graph& g, const Tensor& x) const;  // x [..., in] -> [..., out]
  Tensor weight() const { return param(weight_); }             // [out, in]
  Tensor bias() const { return bias_ >= 0 ? param(bias_) : Tensor(); }  // [out], undefined without bias
  int in_features() const { return in_; }
  int out_features() const { return out_; }

 protected:
  void initialize_own(Rng& rng) override;

 private:
  int in_, out_;
  InitSpec init_;
  ParameterStore::Id weight_;
  ParameterStore::Id bias_ = -1;
};

}  // namespace sinklab
