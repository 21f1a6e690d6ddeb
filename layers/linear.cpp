#include "layers/linear.h"

#include <cmath>
#include <stdexcept>

#include "core/ops/elementwise.h"
#include "core/ops/matmul_op.h"

namespace sinklab {

Linear::Linear(ParameterStore& store, std::string prefix, int in, int out, bool bias, InitSpec init)
    : Module(store, std::move(prefix)), in_(in), out_(out), init_(init) {
  weight_ = declare("weight", {out, in});
  if (bias) bias_ = declare("bias", {out});
}

void Linear::initialize_own(Rng& rng) {
  Tensor w = param(weight_);
  std::span<float> values(w.data(), static_cast<size_t>(w.numel()));
  switch (init_.kind) {
    case InitKind::normal: rng.fill_normal(values, 0.0f, init_.std); break;
    case InitKind::xavier: {
      const float a = std::sqrt(6.0f / static_cast<float>(in_ + out_));
      rng.fill_uniform(values, -a, a);
      break;
    }
    case InitKind::kaiming: rng.fill_normal(values, 0.0f, std::sqrt(2.0f / static_cast<float>(in_))); break;
  }
  if (bias_ >= 0) {
    Tensor b = param(bias_);
    std::fill_n(b.data(), b.numel(), 0.0f);
  }
}

Tensor Linear::forward(Graph& g, const Tensor& x) const {
  if (x.dim(-1) != in_)
    throw std::invalid_argument(prefix() + ": expected input width " + std::to_string(in_) + ", got " +
                                x.shape().str());
  Tensor y = matmul(g, x, param(weight_).transpose(0, 1));
  return bias_ >= 0 ? add(g, y, param(bias_)) : y;
}

}  // namespace sinklab
