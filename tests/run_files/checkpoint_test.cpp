// The training state a checkpoint carries (run_files/checkpoint.h) round-trips exactly through format 4,
// and a state blob that does not decode is a CheckpointError naming the file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "run_files/checkpoint_file.h"
#include "run_files/checkpoint.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

ParameterStore small_store() {
  ParameterStore s;
  s.declare("w", Shape{3, 5});
  s.finalize();
  for (size_t i = 0; i < 15; ++i) s.values()[i] = static_cast<float>(i) * 0.5f;  // not the padding after them
  return s;
}

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("sinklab_checkpoint_test_" + std::to_string(::getpid()) + "_" + name);
}

TEST(TrainingCheckpoint, TheTrainingStateRoundTripsExactly) {
  const CheckpointHashes hashes{11, 22};
  ParameterStore saved = small_store();
  saved.moment(0)[1] = 3.0f;
  TrainingState s;
  s.step = 1234567890123;
  s.optimizer_steps = 987;
  s.rng.words = {1, 2, 3, std::numeric_limits<uint64_t>::max()};
  s.rng.has_cached_normal = true;
  s.rng.cached_normal = -0.123456789012345;
  s.metrics_lines = 42;
  s.stop = StopRule::loss;
  s.last_loss = std::numeric_limits<double>::denorm_min();
  const fs::path path = temp_file("state.bin");
  save_checkpoint(path, hashes, saved, s);

  ParameterStore loaded = small_store();
  for (float& v : loaded.values()) v = 0;
  const TrainingState back = load_checkpoint(path, hashes, loaded);
  EXPECT_EQ(back.step, s.step);
  EXPECT_EQ(back.optimizer_steps, s.optimizer_steps);
  EXPECT_EQ(back.rng.words, s.rng.words);
  EXPECT_EQ(back.rng.has_cached_normal, s.rng.has_cached_normal);
  EXPECT_EQ(std::memcmp(&back.rng.cached_normal, &s.rng.cached_normal, sizeof(double)), 0);
  EXPECT_EQ(back.metrics_lines, s.metrics_lines);
  EXPECT_EQ(back.stop, s.stop);
  EXPECT_EQ(std::memcmp(&back.last_loss, &s.last_loss, sizeof(double)), 0);
  EXPECT_TRUE(back.snapshots.recorded);
  EXPECT_EQ(back.snapshots.interval, 0);
  EXPECT_TRUE(back.snapshots.hashes.empty());
  EXPECT_EQ(std::memcmp(loaded.values().data(), saved.values().data(), saved.values().size_bytes()), 0);
  ASSERT_EQ(loaded.moment_count(), 1);
  EXPECT_EQ(loaded.moment(0)[1], 3.0f);
  fs::remove(path);
}

// A run folder's reader (sinklab.Run.checkpoint_step) needs the step without the model.
TEST(TrainingCheckpoint, TheTrainingStateReadsWithoutAModelAndADamagedTableIsNamed) {
  ParameterStore saved = small_store();
  TrainingState s;
  s.step = 4321;
  s.optimizer_steps = 17;
  const fs::path path = temp_file("state_only.bin");
  save_checkpoint(path, CheckpointHashes{11, 22}, saved, s);
  const TrainingState back = read_training_state(path);
  EXPECT_EQ(back.step, 4321);
  EXPECT_EQ(back.optimizer_steps, 17);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[61] = static_cast<char>(bytes[61] ^ 1);  // inside the parameter table
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  try {
    read_training_state(path);
    ADD_FAILURE() << "a damaged table must be refused";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint " + path.string() + ": checksum mismatch"), std::string::npos)
        << e.what();
  }
  fs::remove(path);
}

TEST(TrainingCheckpoint, AStateThatDoesNotDecodeIsACheckpointError) {
  const CheckpointHashes hashes{11, 22};
  ParameterStore store = small_store();
  const fs::path path = temp_file("bad_state.bin");
  const auto error_of = [&](const std::string& blob) {
    write_checkpoint_file(path, hashes, store, blob);
    try {
      load_checkpoint(path, hashes, store);
      return std::string();
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(error_of("short").find("checkpoint " + path.string() + ": training state: 5 bytes"), std::string::npos);
  // A valid state with its stop rule code (byte 65) out of range.
  std::string blob(74, '\0');
  blob[65] = 7;
  EXPECT_NE(error_of(blob).find("unknown stop rule code 7"), std::string::npos);
  blob[65] = 2;
  EXPECT_EQ(error_of(blob), "");
  // A forged file passes the checksums; its steps must still make sense (bytes 0-7: step, 8-15: optimizer steps).
  const int64_t minus_five = -5;
  std::memcpy(blob.data(), &minus_five, sizeof minus_five);
  EXPECT_NE(error_of(blob).find("training state: step -5 is negative"), std::string::npos) << error_of(blob);
  std::memset(blob.data(), 0, 8);
  std::memcpy(blob.data() + 8, &minus_five, sizeof minus_five);
  EXPECT_NE(error_of(blob).find("optimizer step -5 is negative"), std::string::npos) << error_of(blob);
  fs::remove(path);
}

// The attention snapshots' record (interval and one hash per thinning) round-trips; a state written
// before records existed (74 bytes) still reads, as one without a record, and a record whose hash
// count does not fit the blob is named.
TEST(TrainingCheckpoint, TheSnapshotRecordRoundTripsAndAStateWithoutOneReadsAsUnrecorded) {
  const CheckpointHashes hashes{11, 22};
  ParameterStore store = small_store();
  TrainingState s;
  s.step = 40;
  s.snapshots.interval = 8;
  s.snapshots.hashes = {0x0123456789abcdefULL, 7, std::numeric_limits<uint64_t>::max()};
  const fs::path path = temp_file("snapshot_record.bin");
  save_checkpoint(path, hashes, store, s);
  const TrainingState back = load_checkpoint(path, hashes, store);
  EXPECT_TRUE(back.snapshots.recorded);
  EXPECT_EQ(back.snapshots.interval, 8);
  EXPECT_EQ(back.snapshots.hashes, s.snapshots.hashes);
  EXPECT_EQ(read_training_state(path).snapshots.hashes, s.snapshots.hashes);

  std::string old_state(74, '\0');
  old_state[0] = 40;
  write_checkpoint_file(path, hashes, store, old_state);
  const TrainingState old = load_checkpoint(path, hashes, store);
  EXPECT_EQ(old.step, 40);
  EXPECT_FALSE(old.snapshots.recorded);

  std::string lying = old_state + std::string(12, '\0');
  lying[74 + 8] = 2;  // two hashes announced, none stored
  write_checkpoint_file(path, hashes, store, lying);
  try {
    load_checkpoint(path, hashes, store);
    ADD_FAILURE() << "a record announcing more hashes than it holds must be refused";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("training state: 86 bytes"), std::string::npos) << e.what();
  }
  fs::remove(path);
}

}  // namespace
}  // namespace sinklab
