// The probe's flags: lists, ellipses and log grids parse; every bad value is one std::invalid_argument
// naming the flag.
#include "probes/probe_settings.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace sinklab::probes {
namespace {

std::string error_of(const ProbeFlagTexts& f) {
  try {
    parse_probe_settings(f);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ProbeSettings, DefaultsAreTheSpecsGrids) {
  const ProbeSettings s = parse_probe_settings({});
  EXPECT_TRUE(s.lengths.empty());
  EXPECT_EQ(s.n_values, (std::vector<int>{1, 2, 4, 5, 8, 10, 16, 20, 32, 64, 100}));
  EXPECT_EQ(s.windows, 4);
  EXPECT_EQ(s.mc_samples, 64);
  EXPECT_EQ(s.ks_alpha, 0.01);
  ASSERT_EQ(s.temperatures.size(), 26u);
  EXPECT_NEAR(s.temperatures.front(), 1e-3, 1e-15);
  EXPECT_NEAR(s.temperatures.back(), 1e2, 1e-10);
  EXPECT_NEAR(s.temperatures[5], 1e-2, 1e-12);  // 5 steps per decade
  EXPECT_EQ(s.eps, (std::vector<double>{1e-3, 1e-1, 10}));
}

TEST(ProbeSettings, EllipsisContinuesTheRatio) {
  EXPECT_EQ(parse_int_list("--L", "32,64,...,1024", 2, 4096), (std::vector<int>{32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(parse_int_list("--L", "16,48,...,432", 2, 4096), (std::vector<int>{16, 48, 144, 432}));
  EXPECT_EQ(default_lengths(1024), (std::vector<int>{32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(default_lengths(100), (std::vector<int>{32, 64}));
  EXPECT_EQ(default_lengths(16), (std::vector<int>{16}));
}

TEST(ProbeSettings, CriticalGridIsOneToSixteenThenTimesOnePointFive) {
  EXPECT_EQ(critical_n_grid(1024),
            (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 36, 54, 81, 122, 183}));
  EXPECT_EQ(critical_n_grid(8).back(), 7);
}

TEST(ProbeSettings, BadValuesNameTheirFlag) {
  const auto with = [](auto set) {
    ProbeFlagTexts f;
    set(f);
    return error_of(f);
  };
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.lengths = "64,32"; }).rfind("--L: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.lengths = "32,abc"; }).rfind("--L: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.lengths = "32,,64"; }).rfind("--L: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.lengths = "32,...,64"; }).rfind("--L: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.n_values = "0,5"; }).rfind("--N: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.windows = "0"; }).rfind("--windows: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.windows = "2,3"; }).rfind("--windows: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.vectors = "keys"; }), "--vectors: expected value or hidden, got 'keys'");
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.distance = "r3"; }).rfind("--distance: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.expectation = "exact"; }).rfind("--expectation: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.mc_samples = "0"; }).rfind("--mc-samples: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.ks_alpha = "1"; }).rfind("--ks-alpha: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.temperatures = "1:0.1:5"; }).rfind("--T: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.temperatures = "1e-3:1e2"; }).rfind("--T: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.eps = "-1"; }).rfind("--eps: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.threads = "x"; }).rfind("--threads: expected", 0), 0u);
  EXPECT_EQ(with([](ProbeFlagTexts& f) { f.seed = "-3"; }).rfind("--seed: expected", 0), 0u);
}

}  // namespace
}  // namespace sinklab::probes
