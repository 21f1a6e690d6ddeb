// Damaged checkpoints of a sweep (run_files/quarantine.h): a damaged one is moved to the
// quarantine folder under the run's id (numbered when the name is taken) and listed; an intact one, or
// none, stays where it is.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "run_files/checkpoint_file.h"
#include "run_files/quarantine.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

class CheckpointQuarantine : public ::testing::Test {
 protected:
  void SetUp() override {
    sweep_ = fs::temp_directory_path() / ("sinklab_quarantine_test_" + std::to_string(::getpid()));
    fs::remove_all(sweep_);
    run_ = sweep_ / "runs" / "v-s0";
    fs::create_directories(run_);
  }
  void TearDown() override { fs::remove_all(sweep_); }

  // A valid checkpoint in the run folder; `damage` flips one byte of its data.
  std::string write_checkpoint(bool damage) {
    ParameterStore s;
    s.declare("w", Shape{4});
    s.finalize();
    for (size_t i = 0; i < s.values().size(); ++i) s.values()[i] = static_cast<float>(i);
    write_checkpoint_file(run_ / "checkpoint.bin", {1, 2}, s, "state");
    std::ifstream in(run_ / "checkpoint.bin", std::ios::binary);
    std::string bytes{std::istreambuf_iterator<char>(in), {}};
    if (damage) bytes[bytes.size() - 3] ^= 0x20;
    std::ofstream(run_ / "checkpoint.bin", std::ios::binary | std::ios::trunc) << bytes;
    return bytes;
  }

  fs::path sweep_, run_;
};

TEST_F(CheckpointQuarantine, ADamagedCheckpointIsMovedAsideUnderTheRunsIdAndListed) {
  const std::string bytes = write_checkpoint(true);
  const auto moved = quarantine_damaged_checkpoint(run_, "v-s0", quarantine_dir(sweep_));
  ASSERT_TRUE(moved.has_value());
  EXPECT_EQ(moved->run_id, "v-s0");
  EXPECT_NE(moved->damage.find("checksum mismatch"), std::string::npos) << moved->damage;
  EXPECT_EQ(moved->moved_to, sweep_ / "quarantine" / "v-s0.checkpoint.bin");
  EXPECT_FALSE(fs::exists(run_ / "checkpoint.bin"));
  std::ifstream in(moved->moved_to, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), bytes) << "the damaged file is kept as it was";

  write_checkpoint(true);  // damaged again: the first one is not overwritten
  const auto again = quarantine_damaged_checkpoint(run_, "v-s0", quarantine_dir(sweep_));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->moved_to, sweep_ / "quarantine" / "v-s0.checkpoint.bin.2");
  const auto listed = quarantined_files(sweep_);
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0], moved->moved_to);
  EXPECT_EQ(listed[1], again->moved_to);
}

TEST_F(CheckpointQuarantine, AnIntactCheckpointOrNoneStays) {
  EXPECT_FALSE(quarantine_damaged_checkpoint(run_, "v-s0", quarantine_dir(sweep_)).has_value());
  write_checkpoint(false);
  EXPECT_FALSE(quarantine_damaged_checkpoint(run_, "v-s0", quarantine_dir(sweep_)).has_value());
  EXPECT_TRUE(fs::exists(run_ / "checkpoint.bin"));
  EXPECT_FALSE(fs::exists(quarantine_dir(sweep_)));
  EXPECT_TRUE(quarantined_files(sweep_).empty());
}

TEST_F(CheckpointQuarantine, AQuarantineThatCannotBeCreatedIsAnErrorNamingIt) {
  write_checkpoint(true);
  std::ofstream(sweep_ / "quarantine") << "a file where the folder goes";
  try {
    quarantine_damaged_checkpoint(run_, "v-s0", quarantine_dir(sweep_));
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((sweep_ / "quarantine").string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(run_ / "checkpoint.bin")) << "nothing moved";
}

}  // namespace
}  // namespace sinklab
