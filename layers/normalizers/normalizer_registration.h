#pragma once
// What a normalizer plug-in registers, in one place next to its code: its name, one doc line, its
// options, its factory and the facts about its rows that the probes rely on. The config schema and docs/config.md are
// generated from the options (config_loading/plugin_fields.cpp); normalizer_registry.cpp holds the one list of
// registrations.
#include <memory>
#include <string>
#include <vector>

#include "core/options/option_spec.h"
#include "layers/normalizers/normalizer.h"
#include "layers/normalizers/normalizer_row_facts.h"

namespace sinklab {

struct NormalizerRegistration {
  std::string name;
  std::string doc;
  std::vector<OptionSpec> options;
  // Builds the normalizer from its resolved options (defaults filled in for unset keys).
  std::unique_ptr<Normalizer> (*make)(const PluginOptions& options) = nullptr;
  // What the probes may assume of its rows (default: nothing beyond what the normalizer reports).
  NormalizerRowFacts row_facts{};
};

}  // namespace sinklab
