#pragma once
// Normalizers are built by name from the config. The registry is filled by one explicit function,
// register_builtin_normalizers() (static self-registration would be dropped by the linker).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "configs/run_config.h"
#include "layers/normalizers/normalizer.h"

namespace sinklab {

class NormalizerRegistry {
 public:
  using Factory = std::unique_ptr<Normalizer> (*)(const NormalizerConfig&);
  void add(const std::string& name, Factory factory, const std::string& description);
  // Throws std::invalid_argument listing the known names when `config.name` is unknown.
  std::unique_ptr<Normalizer> create(const NormalizerConfig& config) const;
  std::vector<std::string> names() const;
  const std::string& description(const std::string& name) const;

 private:
  struct Entry {
    Factory factory;
    std::string description;
  };
  std::map<std::string, Entry> entries_;
};

void register_builtin_normalizers(NormalizerRegistry& registry);
// The process-wide registry with the built-in normalizers.
const NormalizerRegistry& normalizer_registry();

}  // namespace sinklab
