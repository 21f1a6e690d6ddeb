#include "apps/model_for_length.h"

#include <algorithm>
#include <stdexcept>

namespace sinklab::apps {

std::unique_ptr<Model> model_for_length(std::unique_ptr<Model> loaded, int T, const std::string& flag_text) {
  if (T <= loaded->shape().max_seq_len) return loaded;
  ModelShape shape = loaded->shape();
  shape.max_seq_len = T;
  auto longer = std::make_unique<Model>(loaded->config(), shape);
  const ParameterStore& from = loaded->parameters();
  ParameterStore& to = longer->parameters();
  for (const ParameterInfo& p : to.parameters()) {
    if (!from.contains(p.name) || !(from.tensor(p.name).shape() == p.shape))
      throw std::invalid_argument(flag_text + ": the model was trained at length " +
                                  std::to_string(loaded->shape().max_seq_len) + " and its parameter " + p.name +
                                  " depends on the length (learned positions); it cannot run longer sequences");
    const Tensor src = from.tensor(p.name);
    std::copy_n(src.data(), src.numel(), to.values().data() + p.offset);
  }
  return longer;
}

}  // namespace sinklab::apps
