#pragma once
// Observers read attention weights during the forward pass without copies. Attention keeps the
// post-normalizer weights (head-major [H, B, T, T]) for backward anyway; an observer gets a read-only view that is
// valid only inside the callback and reduces it to a few numbers (sink statistics, maps).
// With no observer registered, attention pays one empty() check per layer.
#include <cstdint>
#include <utility>
#include <vector>

#include "core/observe/attention_block_layout.h"

namespace sinklab {

struct AttentionView {
  int layer = 0;
  int64_t batch = 0, heads = 0, seq_len = 0;
  const float* weights = nullptr;  // a [T, T] block per (batch item, head), masked entries 0
  const float* scores = nullptr;   // the same blocks of pre-normalizer logits (scaled), or null
  AttentionBlockLayout layout;     // where each block starts (the same for weights and scores)
  // Per-row (per-key) facts, each [H, B, T] head-major (read with row_facts()), or null:
  const float* virtual_mass = nullptr;   // mass row i sent to no key (layers/normalizers/normalizer.h
                                         // RowMass; a key-bias slot; 1 - gate); null where undefined
  const float* gate = nullptr;           // output gate of row i (mean over the head's channels), null
                                         // without gated attention
  const float* value_norms = nullptr;    // ||W_O^h W_V^h x_k|| of key k: what key k adds to the output
                                         // per unit weight; only when an observer wants_value_norms()
  const float* value_norms_v = nullptr;  // ||W_V^h x_k||, the same without W_O
  const float* head_params = nullptr;  // [H, P]: the normalizer's learned parameters per head, or null
  // Only when an observer wants_qkv() (the normalization-limit probes, probes/): each head's
  // queries, keys and values [H, B, T, D] head-major (after rope, before the logit scale), the
  // attention input [B, T, C] (after the block's pre-norm), and the scale the logits q.k are multiplied by.
  const float* queries = nullptr;
  const float* keys = nullptr;
  const float* values = nullptr;
  const float* inputs = nullptr;
  int64_t head_dim = 0, model_dim = 0;
  float logit_scale = 1.0f;

  const float* weights_block(int64_t b, int64_t h) const { return layout.block(weights, b, h); }
  const float* scores_block(int64_t b, int64_t h) const { return layout.block(scores, b, h); }
  // The T values of (sample b, head h) of one of the per-row arrays above.
  const float* row_facts(const float* facts, int64_t b, int64_t h) const { return facts + (h * batch + b) * seq_len; }
};

class AttentionObserver {
 public:
  virtual ~AttentionObserver() = default;
  virtual void on_attention(const AttentionView& view) = 0;
  // Ask for the pre-normalizer scores as well.
  virtual bool wants_scores() const { return false; }
  // Ask for AttentionView::value_norms (costs a [T, D] x [D, C] product per head and sample).
  virtual bool wants_value_norms() const { return false; }
  // Ask for AttentionView::queries / keys / values / inputs (pointers to tensors attention has anyway).
  virtual bool wants_qkv() const { return false; }
  // Called by whoever runs the model (training, evaluation) before a forward pass over `samples`
  // samples, with their position roles ([samples, T], core/observe/position_roles.h; caller-owned,
  // valid until the next call). Observers that need no roles ignore it.
  virtual void begin_batch(const uint8_t* /*roles*/, int /*samples*/) {}
};

// The observers of one model, shared by its attention layers.
class AttentionObservers {
 public:
  class Registration {  // RAII: unregisters on destruction
   public:
    Registration(AttentionObservers& set, AttentionObserver& o) : set_(&set), observer_(&o) { set.add(o); }
    ~Registration() {
      if (set_) set_->remove(*observer_);
    }
    Registration(Registration&& other) noexcept : set_(other.set_), observer_(other.observer_) { other.set_ = nullptr; }
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    Registration& operator=(Registration&&) = delete;

   private:
    AttentionObservers* set_;
    AttentionObserver* observer_;
  };

  [[nodiscard]] Registration observe(AttentionObserver& o) { return Registration(*this, o); }
  bool empty() const { return observers_.empty(); }
  void notify(const AttentionView& view) const {
    for (AttentionObserver* o : observers_) o->on_attention(view);
  }
  bool any_wants_scores() const {
    for (AttentionObserver* o : observers_)
      if (o->wants_scores()) return true;
    return false;
  }
  bool any_wants_qkv() const {
    for (AttentionObserver* o : observers_)
      if (o->wants_qkv()) return true;
    return false;
  }
  bool any_wants_value_norms() const {
    for (AttentionObserver* o : observers_)
      if (o->wants_value_norms()) return true;
    return false;
  }
  // Every observer, leaving the set empty: a pass run from inside another pass (a hook that calls the
  // model) must not feed the outer pass's observers. restore() puts them back when it ends; observers
  // registered in between have unregistered by then (registrations end in reverse order).
  std::vector<AttentionObserver*> set_aside() { return std::exchange(observers_, {}); }
  void restore(std::vector<AttentionObserver*> observers) { observers_ = std::move(observers); }

 private:
  void add(AttentionObserver& o) { observers_.push_back(&o); }
  void remove(AttentionObserver& o) {
    for (auto it = observers_.begin(); it != observers_.end(); ++it)
      if (*it == &o) {
        observers_.erase(it);
        return;
      }
  }
  std::vector<AttentionObserver*> observers_;
};

}  // namespace sinklab
