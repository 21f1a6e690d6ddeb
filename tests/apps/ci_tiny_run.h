#pragma once
// A test fixture whose tests share one training of configs/normlimits/ci_tiny.yaml (the CI-sized
// language model on the committed KJV excerpt, about a second), run from the repository root into a
// fresh temporary folder and removed after the suite.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/apps/cli_process.h"

namespace sinklab::testing {

class CiTinyRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                     ("sinklab_ci_tiny_" + std::to_string(::getpid())));
    std::filesystem::remove_all(*run_);
    trained_ = new CliResult(
        run_sinklab_in(SINKLAB_SOURCE_DIR, "train configs/normlimits/ci_tiny.yaml --out " + run_->string()));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*run_);
    delete run_;
    delete trained_;
  }
  void SetUp() override { ASSERT_EQ(trained_->exit_code, 0) << trained_->output; }

  inline static std::filesystem::path* run_ = nullptr;  // the run folder
  inline static CliResult* trained_ = nullptr;          // the training's exit status and output
};

}  // namespace sinklab::testing
