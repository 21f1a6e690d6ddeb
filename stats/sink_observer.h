#pragma once
// Bridges attention observers to the statistics accumulators: while registered, every attention layer
// of the model feeds its weights (one [T, T] block per sample and head) and its per-row facts
// (virtual mass, gate, value norms) to sink statistics and (optionally) attention maps.
#include <cstdint>

#include "core/observe/attention_observer.h"
#include "stats/attention_maps.h"
#include "stats/sink_statistics.h"

namespace sinklab {

class SinkObserver final : public AttentionObserver {
 public:
  SinkObserver(SinkStatisticsAccumulator* stats, AttentionMapAccumulator* maps) : stats_(stats), maps_(maps) {}
  // The position roles of the batch being run (caller-owned, [batch, T], core/observe/position_roles.h).
  void begin_batch(const uint8_t* roles, int /*samples*/) override { roles_ = roles; }
  // The value-weighted statistics need them. Their cost is paid only on passes with this observer
  // registered: the trainer registers it on logged steps and evaluations only (train/trainer.cpp).
  bool wants_value_norms() const override { return stats_ != nullptr; }
  void on_attention(const AttentionView& v) override {
    if (stats_) {
      const RowFacts facts{v.virtual_mass, v.gate, v.value_norms, v.value_norms_v};
      stats_->add(v.layer, v.weights, static_cast<int>(v.batch), roles_, v.layout, facts);
    }
    if (maps_) maps_->add(v.layer, v.weights, static_cast<int>(v.batch), v.layout);
  }

 private:
  SinkStatisticsAccumulator* stats_;
  AttentionMapAccumulator* maps_;
  const uint8_t* roles_ = nullptr;
};

}  // namespace sinklab
