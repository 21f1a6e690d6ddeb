#include "layers/normalizers/normalizer_registry.h"

#include <algorithm>
#include <stdexcept>

#include "layers/normalizers/clipped_softmax_normalizer.h"
#include "layers/normalizers/elu1_normalizer.h"
#include "layers/normalizers/entmax15_normalizer.h"
#include "layers/normalizers/gated_softmax_normalizer.h"
#include "layers/normalizers/relu2_normalizer.h"
#include "layers/normalizers/relu_normalizer.h"
#include "layers/normalizers/sigmoid_normalizer.h"
#include "layers/normalizers/sink_logit_normalizer.h"
#include "layers/normalizers/softmax_n_normalizer.h"
#include "layers/normalizers/softmax_normalizer.h"
#include "layers/normalizers/softplus_normalizer.h"
#include "layers/normalizers/softpick_normalizer.h"
#include "layers/normalizers/sparsemax_normalizer.h"
#include "layers/normalizers/ssmax_normalizer.h"
#include "layers/normalizers/stablemax_normalizer.h"

namespace sinklab {

void NormalizerRegistry::add(NormalizerRegistration registration) {
  if (find(registration.name)) throw std::logic_error("normalizer '" + registration.name + "' registered twice");
  entries_.push_back(std::move(registration));
}

const NormalizerRegistration* NormalizerRegistry::find(const std::string& name) const {
  for (const auto& r : entries_)
    if (r.name == name) return &r;
  return nullptr;
}

std::unique_ptr<Normalizer> NormalizerRegistry::create(const NormalizerConfig& config) const {
  const NormalizerRegistration* r = find(config.name);
  if (!r) {
    std::string known;
    for (const auto& name : names()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown attention normalizer '" + config.name + "'; known: " + known);
  }
  check_option_values(r->options, config.options, "normalizer '" + r->name + "'");
  return r->make(PluginOptions(r->options, config.options));
}

std::vector<std::string> NormalizerRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& r : entries_) out.push_back(r.name);
  std::sort(out.begin(), out.end());
  return out;
}

const std::string& NormalizerRegistry::description(const std::string& name) const {
  const NormalizerRegistration* r = find(name);
  if (!r) throw std::invalid_argument("unknown attention normalizer '" + name + "'");
  return r->doc;
}

void register_builtin_normalizers(NormalizerRegistry& registry) {
  // One line per normalizer plug-in.
  registry.add(softmax_normalizer_registration());
  registry.add(relu_normalizer_registration());
  registry.add(relu2_normalizer_registration());
  registry.add(sigmoid_normalizer_registration());
  registry.add(softmax_n_normalizer_registration());
  registry.add(sink_logit_normalizer_registration());
  registry.add(ssmax_normalizer_registration());
  registry.add(stablemax_normalizer_registration());
  registry.add(softpick_normalizer_registration());
  registry.add(clipped_softmax_normalizer_registration());
  registry.add(sparsemax_normalizer_registration());
  registry.add(entmax15_normalizer_registration());
  registry.add(gated_softmax_normalizer_registration());
  registry.add(softplus_normalizer_registration());
  registry.add(elu1_normalizer_registration());
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
