#include "stats/sink_onset.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

namespace sinklab {
namespace {

std::vector<HeadSinkStats> heads(std::vector<double> bos) {
  std::vector<HeadSinkStats> out(bos.size());
  for (size_t h = 0; h < bos.size(); ++h) out[h].bos_mass_nontrigger_mean = bos[h];
  return out;
}

std::vector<HeadSinkStats> filled(const SinkOnsetTracker& t, size_t n) {
  std::vector<HeadSinkStats> out(n);
  t.fill(out);
  return out;
}

TEST(SinkOnset, TheStepFromWhichEveryLaterLoggedStepStaysAbove) {
  SinkOnsetTracker t(3);
  // head 0 climbs, dips below 0.5 at step 20 and recovers; head 1 reaches exactly 0.5 and 0.9;
  // head 2 ends below 0.9 after having been above.
  t.observe(0, heads({0.2, 0.3, 0.95}));
  t.observe(10, heads({0.6, 0.5, 0.95}));
  t.observe(20, heads({0.4, 0.9, 0.6}));
  t.observe(30, heads({0.7, 0.9, 0.95}));
  t.observe(40, heads({0.95, 1.0, 0.85}));
  const auto h = filled(t, 3);
  EXPECT_EQ(h[0].sink_onset_step_50, std::optional<int64_t>(30));
  EXPECT_EQ(h[0].sink_onset_step_90, std::optional<int64_t>(40));
  EXPECT_EQ(h[1].sink_onset_step_50, std::optional<int64_t>(10));
  EXPECT_EQ(h[1].sink_onset_step_90, std::optional<int64_t>(20));
  EXPECT_EQ(h[2].sink_onset_step_50, std::optional<int64_t>(0));
  EXPECT_FALSE(h[2].sink_onset_step_90.has_value()) << "the last logged step is below 0.9";
}

TEST(SinkOnset, NullStatisticsAndNoStepsGiveNoOnset) {
  SinkOnsetTracker t(1);
  EXPECT_FALSE(filled(t, 1)[0].sink_onset_step_50.has_value());  // nothing logged
  t.observe(0, heads({0.99}));
  t.observe(5, heads({std::nan("")}));  // no no-op rows in that batch: not "above"
  EXPECT_FALSE(filled(t, 1)[0].sink_onset_step_50.has_value());
  t.observe(10, heads({0.99}));
  EXPECT_EQ(filled(t, 1)[0].sink_onset_step_90, std::optional<int64_t>(10));
}

TEST(SinkOnset, UnknownHistoryGivesNoOnsetRatherThanAWrongOne) {
  SinkOnsetTracker t(1);
  t.mark_unknown();
  t.observe(50, heads({0.99}));
  EXPECT_FALSE(filled(t, 1)[0].sink_onset_step_50.has_value());
}

TEST(SinkOnset, AStepWithAnotherHeadCountIsAProgrammingError) {
  SinkOnsetTracker t(2);
  EXPECT_THROW(t.observe(0, heads({0.5})), std::logic_error);
}

}  // namespace
}  // namespace sinklab
