#pragma once
// Ablating the BOS key (key 0) inside attention, for evaluation only (`sinklab eval --ablate`; the
// ablations of the constructions spec, docs/reproducing-sinks.md "Ablating the sink"):
// - mask_bos_key: rows i >= 1 are normalized without key 0, as if it were masked: the normalizer's row
//   function runs on keys 1..i with RowSpec{query = i} (positions come from query, so relu's divisor
//   max(i, 1) is unchanged) and a_i0 = 0. Row 0 sees only key 0 and stays as it is (there is no row
//   left to normalize). With the key-bias slot (model.attention.key_bias) the row is [slot, keys 1..i].
// - zero_bos_weight: rows are normalized as usual, then a_i0 = 0 in every row (row 0 too): the mass
//   BOS held is simply removed.
// Observers see the ablated weights. The virtual mass of a mask_bos_key row is that of the row the
// normalizer saw (fill_masked_bos_virtual_mass); zero_bos_weight leaves it as the normalizer's rule
// gives it on the zeroed row (0 for simplex rows: the removed mass is not counted as virtual).
// Each applies to the heads a per-(layer, head) mask names; the other heads compute exactly what they
// would without it. No gradient flows through an ablated layer (layers/attention_weights.h refuses a
// graph that tracks one).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "layers/normalizers/normalizer.h"

namespace sinklab {

enum class AblationMode : unsigned char { none, mask_bos_key, zero_bos_weight };

// "none", "mask_bos_key", "zero_bos_weight".
std::string_view ablation_mode_name(AblationMode mode);
// Throws std::invalid_argument listing the modes for any other text.
AblationMode parse_ablation_mode(std::string_view text);

struct HeadRef {
  int layer = 0, head = 0;
  bool operator==(const HeadRef&) const = default;
};

// "L<layer>H<head>", e.g. "L0H1".
std::string head_label(HeadRef head);

// "all" -> every head (an empty list); "L0H1,L1H0" -> those heads in the given order. Throws
// std::invalid_argument naming the entry for a malformed entry, a head the model does not have
// (layers x heads) or a repeated one.
std::vector<HeadRef> parse_head_list(std::string_view text, int layers, int heads);

class AttentionAblation {
 public:
  AttentionAblation() = default;  // no ablation
  // `heads` empty = every head of every layer.
  AttentionAblation(AblationMode mode, std::vector<HeadRef> heads) : mode_(mode), heads_(std::move(heads)) {}

  AblationMode mode() const { return mode_; }
  bool all_heads() const { return heads_.empty(); }
  const std::vector<HeadRef>& heads() const { return heads_; }
  bool applies(int layer, int head) const;
  bool applies_in_layer(int layer) const;  // to some head of `layer`
  // "all" or the heads joined with `separator` ("L0H1,L1H0").
  std::string heads_text(std::string_view separator = ",") const;

 private:
  AblationMode mode_ = AblationMode::none;
  std::vector<HeadRef> heads_;
};

// Overwrites virtual_mass [H, B, T] (layers/attention_row_facts.h) on the rows mask_bos_key renormalized
// (rows i >= 1 of the ablated heads of `layer`) with the virtual mass of the row the normalizer saw:
// keys 1..i, after the key-bias slot when slot_logits is not null (then plus the slot's weight, as
// fill_virtual_mass_with_slot counts it). scores, probs [H, B, T, T]; slot_logits, slot_weights
// [H, B, T] or null; row_buffer 2 (T + 1) floats. Does nothing for the other modes.
void fill_masked_bos_virtual_mass(const AttentionAblation& ablation, int layer, const Normalizer& normalizer,
                                  const float* scores, const float* slot_logits, const float* probs,
                                  const float* slot_weights, const float* head_params, int64_t H, int64_t B,
                                  int64_t T, float* row_buffer, float* virtual_mass);

}  // namespace sinklab
