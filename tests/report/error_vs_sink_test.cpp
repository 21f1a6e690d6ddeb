// The error-against-sink measurement: the sink gap is 1 - the largest per-head minimum of BOS mass over
// the no-op rows (BOS row and trigger row left out), the log-log fit recovers an exact power law, and
// the tables count what they say.
#include "report/error_vs_sink.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sinklab {
namespace {

HeadSinkStats head(std::vector<double> bos_by_row) {
  HeadSinkStats h;
  h.bos_mass_by_row = std::move(bos_by_row);
  return h;
}

TEST(ErrorVsSink, SinkGapTakesTheBestHeadsLeastNoOpRow) {
  // Rows 0 (BOS) and 2 (the trigger) are not no-op rows: their small masses must not count.
  const auto a = head({0.1, 0.9, 0.0, 0.8, 0.95});  // least no-op row 0.8
  const auto b = head({1.0, 0.97, 0.1, 0.99, 0.96});  // least no-op row 0.96
  EXPECT_DOUBLE_EQ(sink_gap({a}, 2), 1.0 - 0.8);
  EXPECT_DOUBLE_EQ(sink_gap({a, b}, 2), 1.0 - 0.96);
  EXPECT_DOUBLE_EQ(sink_gap({b, a}, 2), 1.0 - 0.96);
  EXPECT_TRUE(std::isnan(sink_gap({head({})}, 2)));
}

TEST(ErrorVsSink, LogLogFitRecoversAnExactPowerLaw) {
  std::vector<ErrorSinkPoint> points;
  for (const double eta : {1e-4, 3e-4, 1e-3, 5e-3, 2e-2}) {
    ErrorSinkPoint p;
    p.eta = eta;
    p.eta_no_op = eta / 10;
    p.sink_gap = 1.5 * eta * eta;
    points.push_back(p);
  }
  ErrorSinkPoint zero;  // eta = 0 cannot be on log axes: left out, not a NaN in the fit
  zero.sink_gap = 0.1;
  points.push_back(zero);
  const LogLogFit fit = fit_log_log(points, &ErrorSinkPoint::eta);
  EXPECT_EQ(fit.points, 5);
  EXPECT_NEAR(fit.slope, 2.0, 1e-12);
  EXPECT_NEAR(std::exp(fit.intercept), 1.5, 1e-9);
  EXPECT_NEAR(fit.slope_standard_error, 0.0, 1e-9);
  EXPECT_NEAR(fit_log_log(points, &ErrorSinkPoint::eta_no_op).slope, 2.0, 1e-12);
}

TEST(ErrorVsSink, TableGroupsRunsByThresholdAndCountsTheBound) {
  const auto point = [](double threshold, bool stopped, double eta, double gap) {
    ErrorSinkPoint p;
    p.setting = threshold;
    p.stopped = stopped;
    p.eta = eta;
    p.eta_no_op = eta / 2;
    p.sink_gap = gap;
    return p;
  };
  // Threshold 0.1: one run inside the bound, one outside (gap 0.05 > 2 * 0.02); 0.01: one capped run.
  const std::vector<ErrorSinkPoint> trained{point(0.1, true, 0.05, 0.01), point(0.1, true, 0.02, 0.05),
                                            point(0.01, false, 0.004, 0.002)};
  const std::string md = error_vs_sink_markdown(trained, {});
  EXPECT_NE(md.find("| 0.1 | 2 | 2 | 0.035 | 0.0175 | 0.03 | 0.2 .. 2.5 | 0.4 .. 5 | 1/2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0.01 | 1 | 0 | 0.004 | 0.002 | 0.002 | 0.5 .. 0.5 | 1 .. 1 | 1/1 |"), std::string::npos) << md;
  EXPECT_LT(md.find("| 0.1 |"), md.find("| 0.01 |"));  // loosest threshold first
  EXPECT_NE(md.find("on eta slope"), std::string::npos) << md;
  EXPECT_EQ(error_vs_sink_markdown({trained[0], trained[1]}, {}).find("on eta slope"),
            std::string::npos);  // 2 runs: no fit
}

}  // namespace
}  // namespace sinklab
