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
      variant("relu_row_sum", "relu", {{"divisor", std::string("row_sum")}}),
      variant("relu2_row_sum", "relu2", {{"divisor", std::string("row_sum")}}),
      variant("sigmoid", "sigmoid"),  // divisor visible_non_bos
      variant("sigmoid_neg_log_seq_len", "sigmoid",
              {{"bias", std::string("neg_log_seq_len")}, {"divisor", std::string("none")}}),
      variant("sigmoid_row_sum", "sigmoid", {{"divisor", std::string("row_sum")}}),
      variant("softmax_n", "softmax_n"),  // n = 1: softmax1
      variant("softmax_n_4", "softmax_n", {{"n", 4.0}}),
      variant("sink_logit", "sink_logit"),
      variant("ssmax", "ssmax"),
      variant("stablemax", "stablemax"),
      variant("softpick", "softpick"),
      variant("softpick_eps0_01", "softpick", {{"eps", 0.01}}),
      variant("clipped_softmax", "clipped_softmax"),  // gamma -0.03, zeta 1
      variant("clipped_gamma0_zeta1003", "clipped_softmax", {{"gamma", 0.0}, {"zeta", 1.003}}),
      variant("sparsemax", "sparsemax"),
      variant("entmax15", "entmax15"),
      variant("gated_softmax_per_head", "gated_softmax", {{"gate", std::string("per_head")}}),
      variant("gated_softmax_elementwise", "gated_softmax", {{"gate", std::string("elementwise")}}),
      variant("softplus", "softplus"),  // divisor visible_non_bos
      variant("softplus_row_sum", "softplus", {{"divisor", std::string("row_sum")}}),
      variant("elu1", "elu1"),  // divisor visible_non_bos
      variant("elu1_none", "elu1", {{"divisor", std::string("none")}}),  // Gu et al.'s unnormalized elu+1
      variant("elu1_row_sum", "elu1", {{"divisor", std::string("row_sum")}}),  // and their normalized one
  };
  return variants;
}

}  // namespace sinklab::testing
