#include "layers/embedding.h"

#include "core/ops/embedding.h"

namespace sinklab {

Embedding::Embedding(ParameterStore& store, std::string prefix, int vocab, int width, float init_std)
    : Module(store, std::move(prefix)), init_std_(init_std) {
  weight_ = declare("weight", {vocab, width});
}

void Embedding::initialize_own(Rng& rng) {
  Tensor w = param(weight_);
  rng.fill_normal({w.data(), static_cast<size_t>(w.numel())}, 0.0f, init_std_);
}

Tensor Embedding::forward(Graph& g, const int32_t* ids, int64_t batch, int64_t seq_len) const {
  return embedding(g, param(weight_), ids, Shape{batch, seq_len});
}

}  // namespace sinklab
