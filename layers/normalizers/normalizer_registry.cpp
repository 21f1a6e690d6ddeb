#include "layers/normalizers/normalizer_registry.h"

#include <stdexcept>

#include "layers/normalizers/relu_normalizer.h"
#include "layers/normalizers/softmax_normalizer.h"

namespace sinklab {

void NormalizerRegistry::add(const std::string& name, Factory factory, const std::string& description) {
  if (!entries_.emplace(name, Entry{factory, description}).second)
    throw std::logic_error("normalizer '" + name + "' registered twice");
}

std::unique_ptr<Normalizer> NormalizerRegistry::create(const NormalizerConfig& config) const {
  auto it = entries_.find(config.name);
  if (it == entries_.end()) {
    std::string known;
    for (const auto& [name, entry] : entries_) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown attention normalizer '" + config.name + "'; known: " + known);
  }
  return it->second.factory(config);
}

std::vector<std::string> NormalizerRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) out.push_back(name);
  return out;
}

const std::string& NormalizerRegistry::description(const std::string& name) const { return entries_.at(name).description; }

void register_builtin_normalizers(NormalizerRegistry& registry) {
  registry.add(
      "softmax",
      [](const NormalizerConfig& c) -> std::unique_ptr<Normalizer> {
        return std::make_unique<SoftmaxNormalizer>(static_cast<float>(c.temperature));
      },
      "softmax(s / temperature) over the visible keys");
  registry.add(
      "relu",
      [](const NormalizerConfig& c) -> std::unique_ptr<Normalizer> { return std::make_unique<ReluNormalizer>(c.divisor); },
      "ReLU(s) / c_i, c_i chosen by `divisor` (the paper's: max(i, 1))");
}

const NormalizerRegistry& normalizer_registry() {
  static const NormalizerRegistry registry = [] {
    NormalizerRegistry r;
    register_builtin_normalizers(r);
    return r;
  }();
  return registry;
}

}  // namespace sinklab
