#include "stats/head_statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/observe/position_roles.h"
#include "stats/sink_statistics.h"
#include "tests/support/trigger_roles.h"

namespace sinklab {
namespace {

using namespace position_role;
using sinklab::testing::trigger_roles;

double ent(std::vector<double> p) {
  double e = 0;
  for (double x : p)
    if (x > 0) e -= x * std::log(x);
  return e;
}

HeadSinkStats stats_of(const std::vector<float>& probs, const std::vector<uint8_t>& roles, int T, double eps = 0.3) {
  SinkStatisticsAccumulator acc(1, 1, T, eps);
  acc.add(0, probs.data(), static_cast<int>(roles.size()) / T, roles.data());
  return acc.finish()[0];
}

// One sample, one head, T = 5. Positions 0 and 2 are sink keys, rows 1 and 4 active rows, row 3 the
// only no-op row; row 0 and row 2 (sink keys) are in no row set but "all rows".
constexpr int kT = 5;
const std::vector<uint8_t> kTwoSinksTwoActive = {kSinkKey, kActiveRow, kSinkKey, kNoOpRow, kActiveRow};
std::vector<float> two_sinks_block() {
  return {0.5f, 0,    0,    0,    0,     // sink 0.5, mass 0.5
          0.6f, 0.4f, 0,    0,    0,     // active: sink 0.6, mass 1, non-sink keys {1}
          0.2f, 0.3f, 0.5f, 0,    0,     // sink key row: sink 0.7, mass 1
          0.1f, 0.2f, 0.3f, 0.4f, 0,     // no-op: sink 0.1 + 0.3, mass 1
          0.3f, 0.1f, 0.2f, 0.2f, 0.0f};  // active: sink 0.3 + 0.2, mass 0.8, non-sink keys {1, 3, 4}
}

TEST(HeadStatistics, EveryStatisticOnABlockWithTwoSinkKeysAndTwoActiveRows) {
  const HeadSinkStats s = stats_of(two_sinks_block(), kTwoSinksTwoActive, kT);
  const double tol = 1e-6;
  EXPECT_NEAR(s.bos_mass_nontrigger_mean, 0.4, tol);
  EXPECT_NEAR(s.bos_mass_nontrigger_min, 0.4, tol);
  EXPECT_NEAR(s.mass_nontrigger_mean, 1.0, tol);
  EXPECT_NEAR(s.nonbos_mass_nontrigger_mean, 0.6, tol);
  EXPECT_NEAR(s.trigger_bos, (0.6 + 0.5) / 2, tol);
  EXPECT_NEAR(s.trigger_keys_mean, (0.4 + 0.3 / 3) / 2, tol);             // row 4: (0.1 + 0.2 + 0) / 3
  EXPECT_NEAR(s.trigger_keys_max_deviation, (0.6 + 1.0 / 3) / 2, tol);     // |0.4 - 1| and |0 - 1/3|
  EXPECT_NEAR(s.sink_score, (1.0 + 0.6 + 0.7 + 0.4 + 0.5 / 0.8) / 5, tol);  // every row, renormalized
  EXPECT_TRUE(s.sink_head);
  EXPECT_NEAR(s.entropy_nontrigger, ent({0.1, 0.2, 0.3, 0.4}), tol);
  // Rows that are not sink keys: 1, 3 and 4.
  EXPECT_NEAR(s.bos_mass_mean, (0.6 + 0.4 + 0.5) / 3, tol);
  EXPECT_NEAR(s.mass_mean, (1.0 + 1.0 + 0.8) / 3, tol);
  EXPECT_NEAR(s.entropy_mean, (ent({0.6, 0.4}) + ent({0.1, 0.2, 0.3, 0.4}) + ent({0.375, 0.125, 0.25, 0.25})) / 3, tol);
  EXPECT_FALSE(stats_of(two_sinks_block(), kTwoSinksTwoActive, kT, 0.7).sink_head);  // 0.665 is not > 0.7
}

TEST(HeadStatistics, MeansPoolRowsAndTheMinimumIsOverAllRows) {
  // Two samples of the trigger task at T = 4 (BOS, two no-op rows, the trigger last; then the
  // trigger at 1): the no-op means pool all four (sample, row) pairs.
  const int T = 4;
  const std::vector<float> probs = {1, 0, 0, 0,  0.9f, 0.1f, 0, 0,  0.8f, 0.1f, 0.1f, 0,  0.1f, 0.3f, 0.3f, 0.3f,
                                    1, 0, 0, 0,  0.2f, 0.8f, 0, 0,  0.7f, 0.2f, 0.1f, 0,  0.6f, 0.2f, 0.1f, 0.1f};
  const HeadSinkStats s = stats_of(probs, trigger_roles({3, 1}, T), T);
  EXPECT_NEAR(s.bos_mass_nontrigger_mean, (0.9 + 0.8 + 0.7 + 0.6) / 4, 1e-6);
  EXPECT_NEAR(s.bos_mass_nontrigger_min, 0.6, 1e-6);
  EXPECT_NEAR(s.trigger_bos, (0.1 + 0.2) / 2, 1e-6);
  EXPECT_NEAR(s.trigger_keys_mean, (0.3 + 0.8) / 2, 1e-6);
  EXPECT_NEAR(s.bos_mass_mean, (0.9 + 0.8 + 0.1 + 0.2 + 0.7 + 0.6) / 6, 1e-6);
}

TEST(HeadStatistics, StatisticsWithoutRowsAreNullNeverZeroOrAnError) {
  const int T = 4;
  std::vector<float> probs(2 * T * T, 0.0f);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < T; ++i)
      for (int k = 0; k <= i; ++k) probs[static_cast<size_t>((b * T + i) * T + k)] = 1.0f / static_cast<float>(i + 1);

  // Triggers outside 1..T-1 leave no active row: the trigger statistics are null, nothing throws.
  const HeadSinkStats no_active = stats_of(probs, trigger_roles({-1, 9}, T), T);
  EXPECT_TRUE(std::isnan(no_active.trigger_bos));
  EXPECT_TRUE(std::isnan(no_active.trigger_keys_mean));
  EXPECT_TRUE(std::isnan(no_active.trigger_keys_max_deviation));
  EXPECT_NEAR(no_active.bos_mass_nontrigger_mean, (0.5 + 1.0 / 3 + 0.25) / 3, 1e-6);

  // A plain language model: a sink key and no row flags. Only the all-row statistics exist.
  const std::vector<uint8_t> plain = {kSinkKey, 0, 0, 0, kSinkKey, 0, 0, 0};
  const HeadSinkStats lm = stats_of(probs, plain, T);
  for (const double v : {lm.bos_mass_nontrigger_mean, lm.bos_mass_nontrigger_min, lm.mass_nontrigger_mean,
                         lm.nonbos_mass_nontrigger_mean, lm.entropy_nontrigger, lm.trigger_bos, lm.trigger_keys_mean,
                         lm.trigger_keys_max_deviation})
    EXPECT_TRUE(std::isnan(v)) << v;
  EXPECT_NEAR(lm.bos_mass_mean, (0.5 + 1.0 / 3 + 0.25) / 3, 1e-6);
  EXPECT_NEAR(lm.mass_mean, 1.0, 1e-6);
  EXPECT_NEAR(lm.entropy_mean, (std::log(2.0) + std::log(3.0) + std::log(4.0)) / 3, 1e-6);
  EXPECT_NEAR(lm.sink_score, uniform_causal_baseline(T), 1e-6);
  EXPECT_TRUE(lm.sink_head);  // 0.52 > 0.3 at T = 4

  // An active row that sees only sink keys has a sink mass but no keys to average.
  const std::vector<uint8_t> active_bos = {kSinkKey | kActiveRow, kNoOpRow, kNoOpRow, kNoOpRow,
                                           kSinkKey | kActiveRow, kNoOpRow, kNoOpRow, kNoOpRow};
  const HeadSinkStats bos = stats_of(probs, active_bos, T);
  EXPECT_NEAR(bos.trigger_bos, 1.0, 1e-6);
  EXPECT_TRUE(std::isnan(bos.trigger_keys_mean));
  EXPECT_TRUE(std::isnan(bos.trigger_keys_max_deviation));
}

TEST(HeadStatistics, ContradictoryRolesThrowBeforeAnythingIsAdded) {
  const int T = 4;
  const std::vector<float> probs(T * T, 0.25f);
  SinkStatisticsAccumulator acc(1, 1, T, 0.3);
  const std::vector<uint8_t> both = {kSinkKey, kNoOpRow | kActiveRow, kNoOpRow, kNoOpRow};
  try {
    acc.add(0, probs.data(), 1, both.data());
    FAIL() << "a row that is both no-op and active was accepted";
  } catch (const SinkStatisticsError& e) {
    EXPECT_NE(std::string(e.what()).find("position 1 of sample 0 is both a no-op row and an active row"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(acc.samples(0), 0);
}

TEST(HeadStatistics, TheListKeepsTheContractNames) {
  std::set<std::string> names;
  for (const HeadStatistic& s : kHeadStatistics) EXPECT_TRUE(names.insert(s.name).second) << "twice: " << s.name;
  // Written by earlier runs and read by reports: present and required in every file.
  for (const char* name : {"bos_mass_nontrigger_mean", "bos_mass_nontrigger_min", "mass_nontrigger_mean",
                           "nonbos_mass_nontrigger_mean", "trigger_bos", "trigger_keys_mean",
                           "trigger_keys_max_deviation", "sink_score", "sink_head", "entropy_nontrigger"}) {
    const auto it = std::find_if(kHeadStatistics.begin(), kHeadStatistics.end(),
                                 [&](const HeadStatistic& s) { return std::string(s.name) == name; });
    ASSERT_NE(it, kHeadStatistics.end()) << name;
    EXPECT_EQ(it->in_files, InFiles::required) << name;
  }
  for (const char* name : {"bos_mass_mean", "mass_mean", "entropy_mean"}) EXPECT_EQ(names.count(name), 1u) << name;
}

TEST(HeadStatistics, EveryEntryReachesItsOwnField) {
  HeadSinkStats s;
  double v = 1.0;
  for (const HeadStatistic& stat : kHeadStatistics) {
    if (stat.is_flag())
      s.*stat.flag = true;
    else
      s.*stat.number = v++;
  }
  EXPECT_EQ(s.bos_mass_nontrigger_mean, 1.0);
  EXPECT_EQ(s.nonbos_mass_nontrigger_mean, 4.0);
  EXPECT_EQ(s.sink_score, 8.0);
  EXPECT_TRUE(s.sink_head);
  EXPECT_EQ(s.entropy_nontrigger, 9.0);
  EXPECT_EQ(s.entropy_mean, 12.0);
  std::set<double> seen;
  for (const HeadStatistic& stat : kHeadStatistics) {
    if (!stat.is_flag()) {
      EXPECT_TRUE(seen.insert(s.*stat.number).second) << stat.name << " shares a field";
    }
  }
}

}  // namespace
}  // namespace sinklab
