#include "stats/sink_onset.h"

#include <stdexcept>
#include <string>

namespace sinklab {
namespace {

// NaN (no no-op rows) is below every threshold: it breaks a run.
void step_seen(std::optional<int64_t>& since, int64_t step, double bos_mass, double threshold) {
  if (!(bos_mass >= threshold))
    since.reset();
  else if (!since)
    since = step;
}

}  // namespace

SinkOnsetTracker::SinkOnsetTracker(size_t heads) : since_half_(heads), since_most_(heads) {}

void SinkOnsetTracker::observe(int64_t step, const std::vector<HeadSinkStats>& heads) {
  if (heads.size() != since_half_.size())
    throw std::logic_error("sink onset: " + std::to_string(heads.size()) + " heads logged, expected " +
                           std::to_string(since_half_.size()));
  for (size_t h = 0; h < heads.size(); ++h) {
    step_seen(since_half_[h], step, heads[h].bos_mass_nontrigger_mean, kHalf);
    step_seen(since_most_[h], step, heads[h].bos_mass_nontrigger_mean, kMost);
  }
}

void SinkOnsetTracker::fill(std::vector<HeadSinkStats>& heads) const {
  for (size_t h = 0; h < heads.size(); ++h) {
    const bool known = !unknown_ && h < since_half_.size();
    heads[h].sink_onset_step_50 = known ? since_half_[h] : std::nullopt;
    heads[h].sink_onset_step_90 = known ? since_most_[h] : std::nullopt;
  }
}

}  // namespace sinklab
