#include "sweep/sweep_validation.h"

#include <gtest/gtest.h>

#include "sweep/sweep_error.h"
#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::ScratchDir;
using testing::write_file;

class SweepValidationTest : public ::testing::Test {
 protected:
  void SetUp() override { write_file(dir / "paper/a.yaml", "seed: 11\nmodel:\n  layers: 1\n"); }

  // Plans and validates; returns the error message, "" when valid.
  std::string validate(const std::string& yaml) {
    try {
      const SweepSpec spec = parse_sweep_spec(yaml, dir / "s.yaml");
      runs = expand_sweep(spec);
      validate_sweep(spec, runs, ConfigVocabulary{});
    } catch (const SweepError& e) {
      return e.what();
    }
    return "";
  }

  ScratchDir dir;
  std::vector<PlannedRun> runs;
};

TEST_F(SweepValidationTest, ValidSweepPassesAndTakesTheSeedFromTheConfigWhenUnset) {
  EXPECT_EQ(validate("base: paper/a.yaml\ngrid:\n  optimizer.lr: [1e-3, 1e-4]\n"), "");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].seed, 11);
  EXPECT_EQ(validate("base: paper/a.yaml\ngrid:\n  seed: [3]\n"), "");
  EXPECT_EQ(runs[0].seed, 3);
}

TEST_F(SweepValidationTest, InvalidGridKeyNamesSweepFileLineKeyAndSuggestion) {
  const std::string message = validate(
      "base: paper/a.yaml\n"
      "grid:\n"
      "  seed: [0, 1]\n"
      "  optimizer.lrr: [1e-3]\n");
  const std::string where = (dir / "s.yaml").string() + ":4: grid key 'optimizer.lrr'";
  EXPECT_EQ(message.rfind(where, 0), 0u) << message;
  EXPECT_NE(message.find("variant 'a'"), std::string::npos) << message;
  EXPECT_NE(message.find("did you mean 'lr'"), std::string::npos) << message;
}

TEST_F(SweepValidationTest, InvalidSetValueNamesTheVariant) {
  const std::string message = validate(
      "base: paper/a.yaml\n"
      "variants:\n"
      "  - name: fine\n"
      "  - name: broken\n"
      "    set: {model.layers: two}\n");
  EXPECT_EQ(message.rfind((dir / "s.yaml").string() + ":5: set key 'model.layers' = two for variant 'broken'", 0),
            0u)
      << message;
  EXPECT_NE(message.find("model.layers: "), std::string::npos) << message;
}

TEST_F(SweepValidationTest, BrokenConfigFileIsReportedWithItsOwnLocation) {
  write_file(dir / "paper/bad.yaml", "seed: 0\nmodle:\n  layers: 1\n");
  const std::string message = validate("variants:\n  - name: v\n    config: paper/bad.yaml\n");
  EXPECT_NE(message.find("s.yaml:2: variant 'v'"), std::string::npos) << message;
  EXPECT_NE(message.find("bad.yaml:2: modle"), std::string::npos) << message;
}

}  // namespace
}  // namespace sinklab::sweep
