#include "layers/key_bias_token.h"

#include <cmath>

#include "core/ops/matmul_op.h"

namespace sinklab {

KeyBiasToken::KeyBiasToken(ParameterStore& store, const std::string& attention_prefix, int heads, int head_dim,
                           int d_model, InitSpec init)
    : Module(store, attention_prefix), heads_(heads), head_dim_(head_dim), d_model_(d_model), init_(init) {
  key_ = declare("key_bias", {heads, head_dim});
}

// The distribution of Linear's weight init for W_K (fan in d_model, fan out heads * head_dim).
void KeyBiasToken::initialize_own(Rng& rng) {
  Tensor k = param(key_);
  std::span<float> values(k.data(), static_cast<size_t>(k.numel()));
  const float fan_in = static_cast<float>(d_model_), fan_out = static_cast<float>(heads_ * head_dim_);
  switch (init_.kind) {
    case InitKind::normal: rng.fill_normal(values, 0.0f, init_.std); break;
    case InitKind::xavier: {
      const float a = std::sqrt(6.0f / (fan_in + fan_out));
      rng.fill_uniform(values, -a, a);
      break;
    }
    case InitKind::kaiming: rng.fill_normal(values, 0.0f, std::sqrt(2.0f / fan_in)); break;
  }
}

// q [H, B*T, D] x k*^T [H, D, 1] -> [H, B*T, 1], viewed as [H, B, T]
Tensor KeyBiasToken::logits(Graph& g, const Tensor& q, float scale) const {
  const int64_t H = q.dim(0), B = q.dim(1), T = q.dim(2), D = q.dim(3);
  const Tensor k_star = key().reshape({H, 1, D}).transpose(-2, -1);
  return matmul(g, q.reshape({H, B * T, D}), k_star, scale).reshape({H, B, T});
}

}  // namespace sinklab
