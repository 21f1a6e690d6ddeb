// `sinklab train --resume` and attention_snapshots.npz: the file is part of the run's state, so a resume
// whose file is missing or is another run's is refused with exit 2 and a message naming the file, before
// anything is written; an untouched file ends bit-identical to an uninterrupted run's.
// (A run killed after its final checkpoint and before its summary is the resumable folder here: the
// same resume path as an interrupted run, without timing a signal.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_files/attention_snapshot_file.h"
#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using testing::run_sinklab;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class TrainSnapshotResume : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sinklab_snapshot_resume_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "c.yaml") << "model: {layers: 1, heads: 2}\n"
                                      "train: {batch_size: 16, max_steps: 40, log_every: 10, eval_every: 20}\n"
                                      "task: {eval_samples: 32}\n"
                                      "analysis: {eval_attention_samples: 16, snapshot_samples: 16, "
                                      "snapshot_every: 4}\n"
                                      "threads: 1\n";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // A finished run of seed `seed` in dir_/name.
  fs::path finished(const std::string& name, int seed) {
    const fs::path out = dir_ / name;
    const auto r = run_sinklab("train " + (dir_ / "c.yaml").string() + " --out " + out.string() + " --seed " +
                               std::to_string(seed) + " --quiet");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return out;
  }
  // A copy of `run` as a kill after its final checkpoint leaves it: no summary.json.
  fs::path unfinished_copy(const fs::path& run, const std::string& name) {
    const fs::path copy = dir_ / name;
    fs::copy(run, copy, fs::copy_options::recursive);
    fs::remove(copy / "summary.json");
    return copy;
  }
  fs::path dir_;
};

TEST_F(TrainSnapshotResume, AnUntouchedFileResumesToTheUninterruptedRunsBytes) {
  const fs::path straight = finished("straight", 3);
  const fs::path resumed = unfinished_copy(straight, "resumed");
  const auto r = run_sinklab("train --resume " + resumed.string() + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(slurp(resumed / kAttentionSnapshotsFile), slurp(straight / kAttentionSnapshotsFile));
}

TEST_F(TrainSnapshotResume, AMissingOrForeignFileIsRefusedWithExitTwoAndNothingWritten) {
  const fs::path straight = finished("straight", 3), other_seed = finished("other_seed", 4);
  const fs::path deleted = unfinished_copy(straight, "deleted"), foreign = unfinished_copy(straight, "foreign");
  fs::remove(deleted / kAttentionSnapshotsFile);
  fs::copy_file(other_seed / kAttentionSnapshotsFile, foreign / kAttentionSnapshotsFile,
                fs::copy_options::overwrite_existing);
  const std::string foreign_bytes = slurp(foreign / kAttentionSnapshotsFile);

  const auto missing = run_sinklab("train --resume " + deleted.string() + " --quiet");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find((deleted / kAttentionSnapshotsFile).string() +
                                ": missing; a resume needs the snapshots of steps 0, 4, 8 ... 32, 36 (10 steps)"),
            std::string::npos)
      << missing.output;
  EXPECT_FALSE(fs::exists(deleted / kAttentionSnapshotsFile));
  EXPECT_FALSE(fs::exists(deleted / "summary.json"));

  const auto other = run_sinklab("train --resume " + foreign.string() + " --quiet");
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find((foreign / kAttentionSnapshotsFile).string() + ": its maps differ"), std::string::npos)
      << other.output;
  EXPECT_EQ(slurp(foreign / kAttentionSnapshotsFile), foreign_bytes);
  EXPECT_FALSE(fs::exists(foreign / "summary.json"));
}

}  // namespace
}  // namespace sinklab
