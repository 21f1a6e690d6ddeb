// `sinklab error-vs-sink`: on a constructed run it re-evaluates the checkpoint (agreeing with
// summary.json), puts the run and the construction curve into the CSV with the spec's numbers, and a
// folder without runs is exit 2 naming it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>

#include "tests/apps/cli_process.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using testing::read_text;

TEST(ErrorVsSinkCommand, ConstructedRunAndCurveCarryTheSpecsNumbers) {
  const fs::path scratch = testing::fresh_test_dir(), run = scratch / "beta5";
  const auto built = testing::run_sinklab_in(SINKLAB_SOURCE_DIR, "construct softmax --beta 5 --out " + run.string());
  ASSERT_EQ(built.exit_code, 0) << built.output;
  const auto r =
      testing::run_sinklab("error-vs-sink " + run.string() + " --betas 5,10 --out " + (scratch / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string csv = read_text(scratch / "out" / "error_vs_sink.csv");
  std::istringstream lines(csv);
  std::string header, trained, beta5, beta10;
  std::getline(lines, header);
  std::getline(lines, trained);
  std::getline(lines, beta5);
  std::getline(lines, beta10);
  EXPECT_EQ(header, "kind,name,setting,stopped,eta,eta_no_op,one_minus_bos_min");
  // The constructed run (its stop threshold is the base config's 0.005) and the curve's beta = 5 point
  // are the same model: eta = 14 / (e^5 + 15) = 0.08567, 1 - BOS_min = 15 / (e^5 + 15).
  const auto measured = [](const std::string& line) {  // eta,eta_no_op,one_minus_bos_min
    std::size_t at = 0;
    for (int commas = 0; commas < 4; ++commas) at = line.find(',', at) + 1;
    return line.substr(at);
  };
  EXPECT_EQ(measured(trained), measured(beta5)) << csv;
  EXPECT_EQ(beta5.substr(0, beta5.find(',', 13)), "construction,construction beta=5.0") << csv;
  const auto field = [](const std::string& line, int k) {
    std::istringstream s(line);
    std::string f;
    for (int i = 0; i <= k; ++i) std::getline(s, f, ',');
    return std::stod(f);
  };
  const double e5 = std::exp(5.0), e10 = std::exp(10.0);
  EXPECT_NEAR(field(beta5, 4), 14 / (e5 + 15), 1e-3 * 14 / (e5 + 15));
  EXPECT_NEAR(field(beta5, 6), 15 / (e5 + 15), 1e-6);
  EXPECT_NEAR(field(beta10, 6), 15 / (e10 + 15), 1e-6);
  EXPECT_NEAR(field(beta10, 6) / field(beta10, 4), 15.0 / 14.0, 1e-3);
  EXPECT_TRUE(fs::exists(scratch / "out" / "error_vs_sink.md"));
  EXPECT_TRUE(fs::exists(scratch / "out" / "error_vs_sink.gp"));
}

TEST(ErrorVsSinkCommand, BadBetasAndBasesTheCurveCannotUseAreClearErrors) {
  const fs::path scratch = testing::fresh_test_dir(), run = scratch / "relu";
  ASSERT_EQ(testing::run_sinklab_in(SINKLAB_SOURCE_DIR, "construct relu --out " + run.string()).exit_code, 0);
  // A relu run cannot carry the softmax construction: the message names the config and the way out.
  const auto relu = testing::run_sinklab("error-vs-sink " + run.string() + " --out " + (scratch / "a").string());
  EXPECT_EQ(relu.exit_code, 2) << relu.output;
  EXPECT_NE(relu.output.find("model.attention.normalizer.name"), std::string::npos) << relu.output;
  EXPECT_NE(relu.output.find("--no-curve"), std::string::npos) << relu.output;
  const auto without =
      testing::run_sinklab("error-vs-sink " + run.string() + " --no-curve --out " + (scratch / "b").string());
  EXPECT_EQ(without.exit_code, 0) << without.output;
  EXPECT_EQ(read_text(scratch / "b" / "error_vs_sink.csv").find("construction,"), std::string::npos);
  const auto bad =
      testing::run_sinklab("error-vs-sink " + run.string() + " --betas 5,-1 --out " + (scratch / "c").string());
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--betas: must be a number > 0"), std::string::npos) << bad.output;
}

TEST(ErrorVsSinkCommand, AFolderWithoutRunsIsExitTwoNamingIt) {
  const fs::path scratch = testing::fresh_test_dir();
  const auto r = testing::run_sinklab("error-vs-sink " + (scratch / "nothing").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find((scratch / "nothing").string()), std::string::npos) << r.output;
}

}  // namespace
}  // namespace sinklab
