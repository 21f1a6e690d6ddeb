#pragma once
// Autoregressive sampling from a token model (`sinklab sample`, docs/language-model.md): the model reads
// BOS and the text so far and its logits at the last position give the next token, which is appended.
// The model reads at most `context` positions: once BOS + text is longer, it reads BOS followed by the
// last context - 1 tokens (a sliding window, always BOS-started as in training). A text_lm model is
// never scored at the last position of its training windows, so `sinklab sample` reads seq_len - 1.
// BOS (id 0) is never generated: it is not a token of the text (no training target is BOS).
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "models/model.h"

namespace sinklab {

struct SamplingSettings {
  int tokens = 0;            // how many tokens to generate
  double temperature = 0.0;  // 0: greedy (arg-max, ties to the lower id); > 0: softmax(logits / temperature)
  uint64_t seed = 0;         // the generator of temperature sampling
  int context = 0;           // positions the model reads, BOS included (2 .. max_seq_len); 0 = max_seq_len
  std::function<void(int32_t)> on_token;  // called with each id as soon as it is drawn (`sinklab sample` prints it)
};

// The ids that follow `prompt` (ids without BOS, may be empty). Throws std::invalid_argument for a
// model that does not read tokens, an id outside its vocabulary, a negative or non-finite temperature, or
// a context outside 2 .. max_seq_len.
std::vector<int32_t> sample_tokens(const Model& model, std::span<const int32_t> prompt,
                                   const SamplingSettings& settings);

// The window the model reads to predict the token after `text` (ids without BOS): BOS, then the last
// context - 1 ids of `text`.
std::vector<int32_t> model_window(std::span<const int32_t> text, int context);

}  // namespace sinklab
