#pragma once
// Bridges attention observers to the statistics accumulators: while registered, every attention layer
// of the model feeds its weights (one [T, T] block per sample and head) to sink statistics and (optionally) attention maps.
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
  void on_attention(const AttentionView& v) override {
    if (stats_) stats_->add(v.layer, v.weights, static_cast<int>(v.batch), roles_, v.layout);
    if (maps_) maps_->add(v.layer, v.weights, static_cast<int>(v.batch), v.layout);
  }

 private:
  SinkStatisticsAccumulator* stats_;
  AttentionMapAccumulator* maps_;
  const uint8_t* roles_ = nullptr;
};

}  // namespace sinklab
