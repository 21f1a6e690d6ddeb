#pragma once
// Token embedding: a learned table [vocab, width] looked up by integer ids.
#include "core/graph.h"
#include "layers/module.h"

namespace sinklab {

class Embedding : public Module {
 public:
  Embedding(ParameterStore& store, std::string prefix, int vocab, int width, float init_std);
  // ids [batch, seq_len] (caller-owned, alive until backward) -> [batch, seq_len, width]
  Tensor forward(Graph& g, const int32_t* ids, int64_t batch, int64_t seq_len) const;
  Tensor weight() const { return param(weight_); }  // [vocab, width]

 protected:
  void initialize_own(Rng& rng) override;

 private:
  float init_std_;
  ParameterStore::Id weight_;
};

}  // namespace sinklab
