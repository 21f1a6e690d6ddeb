// The overrides that change what a config file alone resolves to (they name a run by default).
#include "config_loading/changed_overrides.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config_loading/config_loader.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using Changes = std::vector<std::pair<std::string, std::string>>;

class ChangedOverrides : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = fs::temp_directory_path() / ("sinklab_changed_overrides_" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(file_) << "model:\n  attention:\n    normalizer: softmax\noptimizer:\n  lr: 1.0e-3\n";
  }
  void TearDown() override { fs::remove(file_); }
  Changes changes(const std::vector<std::string>& overrides) {
    return changed_overrides(file_, overrides, load_run_config(file_, overrides, std::nullopt));
  }
  fs::path file_;
};

TEST_F(ChangedOverrides, AnOverrideThatChangesAValueCountsAsTyped) {
  EXPECT_EQ(changes({"model.attention.normalizer=relu", " optimizer.lr = 3e-4 "}),
            (Changes{{"model.attention.normalizer", "relu"}, {"optimizer.lr", "3e-4"}}));
}

TEST_F(ChangedOverrides, AnOverrideGivingTheFilesValueOrTheDefaultCountsNot) {
  EXPECT_EQ(changes({"model.attention.normalizer=softmax", "optimizer.lr=0.001"}), Changes{});
  const RunConfig defaults = load_run_config(file_, {}, std::nullopt);
  EXPECT_EQ(changes({"train.max_steps=" + std::to_string(defaults.train.max_steps)}), Changes{});
}

TEST_F(ChangedOverrides, AKeyGivenTwiceCountsOnceWithItsLastValue) {
  EXPECT_EQ(changes({"optimizer.lr=0.5", "optimizer.lr=0.25"}), (Changes{{"optimizer.lr", "0.25"}}));
  EXPECT_EQ(changes({"optimizer.lr=0.5", "optimizer.lr=0.001"}), Changes{});
}

}  // namespace
}  // namespace sinklab
