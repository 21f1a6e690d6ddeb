#include "sweep/sweep_spec.h"

#include <gtest/gtest.h>

#include "sweep/run_naming.h"
#include "sweep/sweep_error.h"
#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::ScratchDir;
using testing::write_file;

// The message of the SweepError that parsing `yaml` throws ("" if it does not throw).
std::string parse_error(const ScratchDir& dir, const std::string& yaml) {
  try {
    parse_sweep_spec(yaml, dir / "sweeps/s.yaml");
  } catch (const SweepError& e) {
    return e.what();
  }
  return "";
}

class SweepSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(dir / "paper/a.yaml", "seed: 0\n");
    write_file(dir / "paper/b.yaml", "seed: 0\n");
  }
  ScratchDir dir;
};

TEST_F(SweepSpecTest, VariantsMayNameTheirSinkClassAndPredictedOutcome) {
  const SweepSpec spec = parse_sweep_spec(
      "base: ../paper/a.yaml\n"
      "variants:\n"
      "  - name: soft\n"
      "    class: S\n"
      "    predicted: \"stops; BOS@nt 0.9998\"\n"
      "  - name: relu\n"
      "    set: {model.attention.normalizer: relu}\n",
      dir / "sweeps/s.yaml");
  ASSERT_EQ(spec.variants.size(), 2u);
  EXPECT_EQ(spec.variants[0].sink_class, "S");
  EXPECT_EQ(spec.variants[0].predicted, "stops; BOS@nt 0.9998");
  EXPECT_EQ(spec.variants[1].sink_class, "");  // both optional: sweeps before the zoo have neither
  EXPECT_EQ(spec.variants[1].predicted, "");
}

TEST_F(SweepSpecTest, AClassOutsideTheSinkClassesNamesKeyFileAndLine) {
  const std::string error = parse_error(dir,
                                        "base: ../paper/a.yaml\n"
                                        "variants:\n"
                                        "  - name: soft\n"
                                        "    class: simplex\n");
  EXPECT_NE(error.find((dir / "sweeps/s.yaml").string() + ":4: variant key 'class' is 'simplex'; it must be one of the "
                       "sink classes S, V, Z, C, G, U"),
            std::string::npos)
      << error;
  EXPECT_NE(parse_error(dir, "base: ../paper/a.yaml\nvariants:\n  - name: soft\n    class: s\n").find("'s'"),
            std::string::npos);
  EXPECT_NE(parse_error(dir, "base: ../paper/a.yaml\nvariants:\n  - name: soft\n    class: [S]\n")
                .find("variant class must be a single value"),
            std::string::npos);
  EXPECT_NE(
      parse_error(dir, "base: ../paper/a.yaml\nvariants:\n  - name: soft\n    clas: S\n").find("did you mean 'class'?"),
      std::string::npos);
}

TEST_F(SweepSpecTest, ReadsVariantsGridAndResolvesPathsAgainstTheSweepFile) {
  const SweepSpec spec = parse_sweep_spec(
      "name: demo\n"
      "base: ../paper/a.yaml\n"
      "variants:\n"
      "  - name: soft\n"
      "  - name: relu\n"
      "    config: ../paper/b.yaml\n"
      "    set: {model.attention.normalizer: relu, optimizer.lr: 1e-4}\n"
      "grid:\n"
      "  seed: [0, 1]\n"
      "  model.layers: [1, 2, 4]\n",
      dir / "sweeps/s.yaml");
  EXPECT_EQ(spec.name, "demo");
  EXPECT_EQ(spec.title, "demo");  // `name:` titles the report as written
  ASSERT_EQ(spec.variants.size(), 2u);
  EXPECT_EQ(spec.variants[0].config, (dir / "paper/a.yaml").lexically_normal());
  EXPECT_EQ(spec.variants[1].config, (dir / "paper/b.yaml").lexically_normal());
  ASSERT_EQ(spec.variants[1].set.size(), 2u);
  EXPECT_EQ(spec.variants[1].set[0].key, "model.attention.normalizer");
  EXPECT_EQ(spec.variants[1].set[1].value, "1e-4");
  ASSERT_EQ(spec.grid.size(), 2u);
  EXPECT_EQ(spec.grid[1].key, "model.layers");
  EXPECT_EQ(spec.grid[1].values, (std::vector<std::string>{"1", "2", "4"}));
  EXPECT_EQ(spec.grid[1].line, 10);
}

TEST_F(SweepSpecTest, BaseAloneIsOneVariantNamedAfterIt) {
  const SweepSpec spec = parse_sweep_spec("base: ../paper/a.yaml\ngrid: {seed: 3}\n", dir / "sweeps/s.yaml");
  ASSERT_EQ(spec.variants.size(), 1u);
  EXPECT_EQ(spec.variants[0].name, "a");
  EXPECT_EQ(spec.name, "s");  // default: the sweep file's stem
  EXPECT_EQ(spec.grid[0].values, std::vector<std::string>{"3"});
}

TEST_F(SweepSpecTest, WithoutANameTheTitleIsTheFileStemReadably) {
  auto spec = parse_sweep_spec("base: ../paper/a.yaml\n", dir / "sweeps/normalizers_1x1.yaml");
  EXPECT_EQ(spec.name, "normalizers_1x1");  // the folder name is unchanged
  EXPECT_EQ(spec.title, "normalizers 1x1");
  spec = parse_sweep_spec("base: ../paper/a.yaml\n", dir / "sweeps/lr 3e-4.yaml");
  EXPECT_EQ(spec.name, "lr-3e-4");
  EXPECT_EQ(spec.title, "lr 3e-4");
  spec = parse_sweep_spec("base: ../paper/a.yaml\n", dir / "sweeps/sweep.yaml");
  EXPECT_EQ(spec.title, "sweep");  // the report used to call this "Sweep sweep"
}

TEST_F(SweepSpecTest, UnknownTopLevelKeyIsNamedWithLineAndSuggestion) {
  const std::string message = parse_error(dir, "base: ../paper/a.yaml\ngird:\n  seed: [0]\n");
  EXPECT_NE(message.find("s.yaml:2"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown key 'gird'"), std::string::npos) << message;
  EXPECT_NE(message.find("did you mean 'grid'"), std::string::npos) << message;
}

TEST_F(SweepSpecTest, ASecondYamlDocumentIsRefusedNotDropped) {
  const std::string message = parse_error(dir, "base: ../paper/a.yaml\n---\ngrid:\n  seed: [0, 1]\n");
  EXPECT_NE(message.find("s.yaml:2"), std::string::npos) << message;
  EXPECT_NE(message.find("a second YAML document starts here; a sweep file is one document"), std::string::npos)
      << message;
  const std::string deep =
      parse_error(dir, "base: ../paper/a.yaml\ngrid: " + std::string(3000, '[') + std::string(3000, ']') + "\n");
  EXPECT_NE(deep.find("YAML nested deeper than"), std::string::npos) << deep;
  // yaml-cpp's LoadAll never returned on this input (the fuzzer's finding, kept in tests/fuzz/regressions).
  EXPECT_NE(parse_error(dir, "# a comment\n, 3.0e-4]\n"), "");
}

TEST_F(SweepSpecTest, EmptyGridListIsRejected) {
  const std::string message = parse_error(dir, "base: ../paper/a.yaml\ngrid:\n  seed: []\n");
  EXPECT_NE(message.find("s.yaml:3"), std::string::npos) << message;
  EXPECT_NE(message.find("grid.seed is an empty list"), std::string::npos) << message;
}

TEST_F(SweepSpecTest, MissingConfigFileIsNamed) {
  const std::string message =
      parse_error(dir, "variants:\n  - name: x\n    config: ../paper/nope.yaml\n");
  EXPECT_NE(message.find("s.yaml:3"), std::string::npos) << message;
  EXPECT_NE(message.find("'../paper/nope.yaml' not found"), std::string::npos) << message;
  const std::string directory = parse_error(dir, "base: ../paper\n");  // a folder is not "not found"
  EXPECT_NE(directory.find("s.yaml:1"), std::string::npos) << directory;
  EXPECT_NE(directory.find("'../paper' is a directory"), std::string::npos) << directory;
}

TEST_F(SweepSpecTest, ShapeErrorsAreClear) {
  EXPECT_NE(parse_error(dir, "name: x\n").find("needs 'base'"), std::string::npos);
  EXPECT_NE(parse_error(dir, "variants:\n  - name: x\n").find("has no 'config'"), std::string::npos);
  EXPECT_NE(parse_error(dir, "base: ../paper/a.yaml\nvariants:\n  - name: x\n  - name: x\n")
                .find("two variants are named 'x'"),
            std::string::npos);
  EXPECT_NE(parse_error(dir, "base: ../paper/a.yaml\nvariants:\n  - name: x\n    sett: {}\n")
                .find("did you mean 'set'"),
            std::string::npos);
  EXPECT_NE(parse_error(dir, "base: ../paper/a.yaml\ngrid:\n  seed: [0, 1, 0]\n").find("lists '0' twice"),
            std::string::npos);
  EXPECT_NE(parse_error(dir, "base: ../paper/a.yaml\ngrid:\n  seed: [[0]]\n").find("single value"),
            std::string::npos);
  EXPECT_NE(parse_error(dir, "base: ../paper/a.yaml\nname: a/b\n").find("name 'a/b'"), std::string::npos);
  EXPECT_NE(parse_error(dir, "base: ../paper/a.yaml\ngrid:\n  'optimizer lr': [1]\n").find("not a config key path"),
            std::string::npos);
  EXPECT_NE(parse_error(dir, "base: [\n").find("invalid YAML"), std::string::npos);
}

TEST_F(SweepSpecTest, KeyInBothVariantSetAndGridIsRejected) {
  const std::string message = parse_error(dir,
                                          "base: ../paper/a.yaml\n"
                                          "variants:\n"
                                          "  - name: x\n"
                                          "    set: {optimizer.lr: 1e-3}\n"
                                          "grid: {optimizer.lr: [1e-3, 1e-4]}\n");
  EXPECT_NE(message.find("s.yaml:4"), std::string::npos) << message;
  EXPECT_NE(message.find("variant 'x' sets 'optimizer.lr', which the grid also sweeps (line 5)"),
            std::string::npos)
      << message;
}

TEST_F(SweepSpecTest, LoadReportsAnUnreadableFile) {
  try {
    load_sweep_spec(dir / "missing.yaml");
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.yaml"), std::string::npos);
  }
}


TEST_F(SweepSpecTest, NamesLongerThanTheLimitAreRefusedWithTheirLine) {
  const std::string long_name(300, 'v');
  std::string what = parse_error(dir, "base: ../paper/a.yaml\nvariants:\n  - name: ok\n  - name: " + long_name + "\n");
  EXPECT_NE(what.find("s.yaml:4:"), std::string::npos) << what;
  EXPECT_NE(what.find("300 bytes"), std::string::npos) << what;
  EXPECT_NE(what.find("at most " + std::to_string(kMaxNameBytes)), std::string::npos) << what;
  what = parse_error(dir, "name: " + long_name + "\nbase: ../paper/a.yaml\n");
  EXPECT_NE(what.find("s.yaml:1:"), std::string::npos) << what;
  EXPECT_NE(what.find("at most " + std::to_string(kMaxNameBytes)), std::string::npos) << what;
  // A name at the limit is fine.
  EXPECT_EQ(parse_error(dir, "name: " + std::string(kMaxNameBytes, 'n') + "\nbase: ../paper/a.yaml\n"), "");
}

TEST_F(SweepSpecTest, DefaultNameFromTheFileIsCheckedToo) {
  try {
    parse_sweep_spec("base: ../paper/a.yaml\n", dir / ("sweeps/" + std::string(120, 'f') + ".yaml"));
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("at most " + std::to_string(kMaxNameBytes)), std::string::npos) << e.what();
  }
}

TEST(SweepFile, ADeviceIsRefusedWithoutBeingRead) {
  try {
    load_sweep_spec("/dev/zero");
    FAIL() << "/dev/zero was accepted as a sweep file";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("sweep file /dev/zero: is not a regular file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sinklab::sweep
