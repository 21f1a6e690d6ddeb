#pragma once
// The sink onset of each (layer, head): the first logged training step from which the head's
// bos_mass_nontrigger_mean on the logged training batches stays >= 0.5 (and >= 0.9) at every later
// logged step through the end of training; none when the last logged step is below. Fed with the
// per-head statistics of every line of metrics.jsonl, in step order, so a resumed run replays the
// lines its checkpoint kept and ends with the onsets of an uninterrupted run (train/trainer.cpp).
#include <cstdint>
#include <optional>
#include <vector>

#include "stats/head_statistics.h"

namespace sinklab {

class SinkOnsetTracker {
 public:
  static constexpr double kHalf = 0.5, kMost = 0.9;

  // heads: layers * heads per layer. Allocates here only, never per step.
  explicit SinkOnsetTracker(size_t heads = 0);
  // One logged step's statistics (layer-major, as the accumulator gives them), steps increasing.
  void observe(int64_t step, const std::vector<HeadSinkStats>& heads);
  // The logged steps before this point cannot be seen (a resume without its metrics log): every
  // onset stays unknown (none) to the end, rather than a wrong step.
  void mark_unknown() { unknown_ = true; }
  // Writes sink_onset_step_50 / _90 into heads (the same layer-major order).
  void fill(std::vector<HeadSinkStats>& heads) const;

 private:
  // Per head: the first step of the current unbroken run of logged steps at or above the threshold.
  std::vector<std::optional<int64_t>> since_half_, since_most_;
  bool unknown_ = false;
};

}  // namespace sinklab
