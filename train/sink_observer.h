#pragma once
// Bridges attention observers to the analysis accumulators: while registered, every attention layer
// of the model feeds its weights (one [T, T] block per sample and head) to sink statistics and (optionally) attention maps.
#include <cstdint>
#include <vector>

#include "analysis/attention_maps.h"
#include "analysis/sink_statistics.h"
#include "core/observe/position_roles.h"
#include "models/evaluation.h"

namespace sinklab {

class SinkObserver final : public BatchObserver {
 public:
  SinkObserver(SinkStatisticsAccumulator* stats, AttentionMapAccumulator* maps) : stats_(stats), maps_(maps) {}
  // The statistics still take one trigger position per sample: the first active row of its roles.
  void begin_batch(const ConstBatchView& batch, int samples) override {
    const int T = stats_ ? stats_->seq_len() : 0;
    triggers_.resize(static_cast<std::size_t>(samples));
    for (int b = 0; b < samples; ++b) {
      int32_t trigger = -1;
      for (int i = 0; i < T && trigger < 0; ++i)
        if (batch.roles[static_cast<std::size_t>(b) * T + i] & position_role::kActiveRow) trigger = i;
      triggers_[static_cast<std::size_t>(b)] = trigger;
    }
  }
  void on_attention(const AttentionView& v) override {
    if (stats_) stats_->add(v.layer, v.weights, static_cast<int>(v.batch), triggers_.data(), v.layout);
    if (maps_) maps_->add(v.layer, v.weights, static_cast<int>(v.batch), v.layout);
  }

 private:
  SinkStatisticsAccumulator* stats_;
  AttentionMapAccumulator* maps_;
  std::vector<int32_t> triggers_;
};

}  // namespace sinklab
