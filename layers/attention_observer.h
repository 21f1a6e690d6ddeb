#pragma once
// Observers read attention weights during the forward pass without copies. Attention keeps the
// post-normalizer weights [B, H, T, T] for backward anyway; an observer gets a read-only view that is
// valid only inside the callback and reduces it to a few numbers (sink statistics, maps).
// With no observer registered, attention pays one empty() check per layer.
#include <cstdint>
#include <vector>

namespace sinklab {

struct AttentionView {
  int layer = 0;
  int64_t batch = 0, heads = 0, seq_len = 0;
  const float* weights = nullptr;  // [batch, heads, T, T], masked entries 0
  const float* scores = nullptr;   // [batch, heads, T, T] pre-normalizer logits (scaled), or null
};

class AttentionObserver {
 public:
  virtual ~AttentionObserver() = default;
  virtual void on_attention(const AttentionView& view) = 0;
  // Ask for the pre-normalizer scores as well.
  virtual bool wants_scores() const { return false; }
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
