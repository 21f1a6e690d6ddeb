#pragma once
// The one list of normalizer plug-ins (normalizer_registry.cpp: one registration line each). Builds a
// normalizer by name with its options; the config schema reads the registrations' options.
#include <memory>
#include <string>
#include <vector>

#include "layers/model_config.h"
#include "layers/normalizers/normalizer_registration.h"

namespace sinklab {

class NormalizerRegistry {
 public:
  // Throws std::logic_error for a name registered twice.
  void add(NormalizerRegistration registration);
  // Throws std::invalid_argument listing the known names when `config.name` is unknown, and
  // std::logic_error for options the normalizer does not declare (the config loader checks those first).
  std::unique_ptr<Normalizer> create(const NormalizerConfig& config) const;
  const NormalizerRegistration* find(const std::string& name) const;
  std::vector<std::string> names() const;  // sorted
  const std::string& description(const std::string& name) const;
  const std::vector<NormalizerRegistration>& registrations() const { return entries_; }

 private:
  std::vector<NormalizerRegistration> entries_;  // registration order
};

void register_builtin_normalizers(NormalizerRegistry& registry);
// The process-wide registry with the built-in normalizers.
const NormalizerRegistry& normalizer_registry();

}  // namespace sinklab
