#include "layers/attention_ablation.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace sinklab {
namespace {

constexpr AblationMode kModes[] = {AblationMode::none, AblationMode::mask_bos_key, AblationMode::zero_bos_weight};

// A non-negative decimal number filling `text` exactly, or -1.
int whole_number(std::string_view text) {
  int value = -1;
  if (text.empty() || text.size() > 6) return -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : -1;
}

}  // namespace

std::string_view ablation_mode_name(AblationMode mode) {
  switch (mode) {
    case AblationMode::none: return "none";
    case AblationMode::mask_bos_key: return "mask_bos_key";
    case AblationMode::zero_bos_weight: return "zero_bos_weight";
  }
  return "none";
}

AblationMode parse_ablation_mode(std::string_view text) {
  for (AblationMode m : kModes)
    if (ablation_mode_name(m) == text) return m;
  throw std::invalid_argument("--ablate: unknown mode '" + std::string(text) +
                              "' (one of: none, mask_bos_key, zero_bos_weight)");
}

std::string head_label(HeadRef head) { return "L" + std::to_string(head.layer) + "H" + std::to_string(head.head); }

std::vector<HeadRef> parse_head_list(std::string_view text, int layers, int heads) {
  if (text == "all") return {};
  const std::string model = std::to_string(layers) + " layer(s) x " + std::to_string(heads) + " head(s)";
  if (text.empty()) throw std::invalid_argument("--heads: empty (give all, or a list such as L0H1,L1H0)");
  std::vector<HeadRef> list;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    const std::string_view entry = text.substr(begin, comma - begin);
    const size_t h_at = entry.find('H');
    const int layer = entry.size() > 1 && entry[0] == 'L' && h_at != std::string_view::npos
                          ? whole_number(entry.substr(1, h_at - 1))
                          : -1;
    const int head = layer >= 0 ? whole_number(entry.substr(h_at + 1)) : -1;
    if (layer < 0 || head < 0)
      throw std::invalid_argument("--heads: '" + std::string(entry) +
                                  "' is not a head (all, or a list such as L0H1,L1H0: layer and head from 0)");
    if (layer >= layers || head >= heads)
      throw std::invalid_argument("--heads: " + std::string(entry) + " is not a head of this model (" + model +
                                  ", counted from 0)");
    const HeadRef ref{layer, head};
    if (std::find(list.begin(), list.end(), ref) != list.end())
      throw std::invalid_argument("--heads: " + std::string(entry) + " is listed twice");
    list.push_back(ref);
    begin = comma + 1;
  }
  return list;
}

bool AttentionAblation::applies(int layer, int head) const {
  if (mode_ == AblationMode::none) return false;
  return heads_.empty() || std::find(heads_.begin(), heads_.end(), HeadRef{layer, head}) != heads_.end();
}

bool AttentionAblation::applies_in_layer(int layer) const {
  if (mode_ == AblationMode::none) return false;
  return heads_.empty() ||
         std::any_of(heads_.begin(), heads_.end(), [layer](const HeadRef& h) { return h.layer == layer; });
}

std::string AttentionAblation::heads_text(std::string_view separator) const {
  if (heads_.empty()) return "all";
  std::string text;
  for (const HeadRef& h : heads_) text += (text.empty() ? "" : std::string(separator)) + head_label(h);
  return text;
}

// scores, probs: [H, B, T, T]; slot_logits, slot_weights, virtual_mass: [H, B, T]
void fill_masked_bos_virtual_mass(const AttentionAblation& ablation, int layer, const Normalizer& normalizer,
                                  const float* scores, const float* slot_logits, const float* probs,
                                  const float* slot_weights, const float* head_params, int64_t H, int64_t B,
                                  int64_t T, float* row_buffer, float* virtual_mass) {
  if (ablation.mode() != AblationMode::mask_bos_key) return;
  const int P = normalizer.params_per_head();
  const int64_t lead = slot_logits ? 1 : 0;
  float* s_row = row_buffer;  // [T + 1] each: [slot,] keys 1..i
  float* p_row = row_buffer + T + 1;
  for (int64_t h = 0; h < H; ++h) {
    if (!ablation.applies(layer, static_cast<int>(h))) continue;
    const float* params = P > 0 ? head_params + h * P : nullptr;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 1; i < T; ++i) {
        const int64_t row = (h * B + b) * T + i;
        if (slot_logits) {
          s_row[0] = slot_logits[row];
          p_row[0] = slot_weights[row];
        }
        std::copy_n(scores + row * T + 1, i, s_row + lead);
        std::copy_n(probs + row * T + 1, i, p_row + lead);
        const RowSpec spec{static_cast<int>(i), static_cast<int>(i + lead), static_cast<int>(T), static_cast<int>(h)};
        virtual_mass[row] =
            (slot_logits ? slot_weights[row] : 0.0f) + normalizer.virtual_mass(s_row, p_row, spec, params);
      }
  }
}

}  // namespace sinklab
