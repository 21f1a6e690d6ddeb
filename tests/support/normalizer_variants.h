#pragma once
// The normalizer variants every normalizer test runs over: each registered normalizer with its
// defaults, plus the option settings of the zoo (docs/normalizer-zoo.md) that change its math.
// A test checks that every registered normalizer is listed here, so a new plug-in cannot skip them.
#include <string>
#include <vector>

#include "layers/model_config.h"

namespace sinklab::testing {

struct NormalizerVariant {
  std::string label;  // test name: letters, digits, underscores
  NormalizerConfig config;
};

inline NormalizerVariant variant(std::string label, std::string name,
                                 std::vector<std::pair<std::string, OptionValue>> options = {}) {
  NormalizerVariant v{std::move(label), {std::move(name), {}}};
  for (auto& [key, value] : options) v.config.options.set(key, std::move(value));
  return v;
}

inline const std::vector<NormalizerVariant>& normalizer_variants() {
  static const std::vector<NormalizerVariant> variants = {
      variant("softmax", "softmax"),
      variant("softmax_T0_1", "softmax", {{"temperature", 0.1}}),
      variant("softmax_T10", "softmax", {{"temperature", 10.0}}),
      variant("relu", "relu"),
      variant("relu_visible", "relu", {{"divisor", std::string("visible")}}),
      variant("relu_seq_len", "relu", {{"divisor", std::string("seq_len")}}),
      variant("relu_none", "relu", {{"divisor", std::string("none")}}),
      variant("relu2", "relu2"),
      variant("sparsemax", "sparsemax"),
      variant("entmax15", "entmax15"),
      variant("gated_softmax_per_head", "gated_softmax", {{"gate", std::string("per_head")}}),
      variant("gated_softmax_elementwise", "gated_softmax", {{"gate", std::string("elementwise")}}),
  };
  return variants;
}

}  // namespace sinklab::testing
