// Attention snapshots in a training run: taken at multiples of analysis.snapshot_every and at the final
// step, equal to the evaluation's own attention maps at those steps, never changing the trained
// weights, continued bit-identically by a resumed run, and absent with snapshot_every 0. A resume keeps
// the file only if it holds the snapshots its checkpoint recorded.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "config_loading/config_loader.h"
#include "data/task_registry.h"
#include "run_files/attention_snapshot_file.h"
#include "tests/support/test_dir.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

RunConfig config(int snapshot_every, int max_steps = 23, int snapshot_limit = 0) {
  RunConfig c = parse_run_config(
      "model: {layers: 2, heads: 2, residual: true}\noptimizer: {lr: 3.0e-3}\n"
      "train: {batch_size: 16, max_steps: " +
          std::to_string(max_steps) +
          ", log_every: 5, eval_every: 10, stop_max_abs_error: 0}\n"
          "task: {eval_samples: 40}\nanalysis: {eval_attention_samples: 30, snapshot_samples: 30, snapshot_every: " +
          std::to_string(snapshot_every) + ", snapshot_limit: " + std::to_string(snapshot_limit) + "}\n",
      "test.yaml", {}, registered_vocabulary());
  return c;
}

// A run folder as the train command makes it.
fs::path run_folder(const fs::path& p) {
  fs::create_directories(p);
  return p;
}

// Trains `c` quietly in the run folder `dir` (made if missing) and returns the snapshots it kept.
AttentionSnapshots snapshots_of_run(const RunConfig& c, const fs::path& dir) {
  TrainOptions o;
  o.quiet = true;
  o.run_dir = run_folder(dir);
  Trainer(c).run(o);
  return read_attention_snapshots(dir / kAttentionSnapshotsFile);
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(TrainerSnapshots, StepsAreTheMultiplesAndTheFinalStep) {
  const fs::path dir = testing::fresh_test_dir();
  const AttentionSnapshots s = snapshots_of_run(config(10), dir / "a");
  EXPECT_EQ(s.steps, (std::vector<int64_t>{0, 10, 20, 22}));
  EXPECT_EQ(s.layers, 2);
  EXPECT_EQ(s.heads, 2);
  EXPECT_EQ(s.seq_len, 16);
  EXPECT_EQ(s.mean.size(), 4 * s.block());
  EXPECT_TRUE(s.tokens.empty());  // a vector task
  // A run ending on a multiple keeps it once.
  EXPECT_EQ(snapshots_of_run(config(11), dir / "b").steps, (std::vector<int64_t>{0, 11, 22}));
}

// Each snapshot against the evaluation's own attention maps (stats/attention_maps.h, Welford means over
// the same analysis.eval_attention_samples inputs) of a separate run stopped after that step.
TEST(TrainerSnapshots, EachSnapshotIsTheEvaluationsMeanMapAtItsStep) {
  const AttentionSnapshots s = snapshots_of_run(config(10), testing::fresh_test_dir());
  ASSERT_EQ(s.steps.size(), 4u);
  for (size_t i = 0; i < s.steps.size(); ++i) {
    Trainer t(config(0));
    TrainOptions until;
    until.quiet = true;
    until.stop_at_step = s.steps[i] + 1;
    t.run(until);
    AttentionMapAccumulator maps(2, 2, 16);
    t.evaluate(&maps);
    ASSERT_EQ(maps.samples(0), 30);
    const size_t side = s.side();
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 2; ++h) {
        const std::vector<float> mean = maps.mean(l, h), first = maps.sample0(l, h);
        const size_t at = i * s.block() + (static_cast<size_t>(l) * 2 + h) * side * side;
        for (size_t e = 0; e < side * side; ++e) {
          ASSERT_NEAR(s.mean[at + e], mean[e], 1e-6)
              << "step " << s.steps[i] << " layer " << l << " head " << h << " cell " << e;
          ASSERT_EQ(s.example[at + e], first[e])
              << "step " << s.steps[i] << " layer " << l << " head " << h << " cell " << e;
        }
      }
  }
  // The roles are evaluation input 0's: BOS is the sink key.
  EXPECT_EQ(s.roles[0] & 1, 1);
}

TEST(TrainerSnapshots, SnapshotsNeverChangeTheWeights) {
  const fs::path dir = testing::fresh_test_dir();
  TrainOptions o;
  o.quiet = true;
  o.run_dir = run_folder(dir / "every");
  Trainer every(config(1));
  every.run(o);
  o.run_dir = run_folder(dir / "never");
  Trainer never(config(0));
  never.run(o);
  const auto a = every.parameters().values(), b = never.parameters().values();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
  EXPECT_EQ(read_attention_snapshots(dir / "every" / kAttentionSnapshotsFile).steps.size(), 23u);
}

TEST(TrainerSnapshots, SnapshotEveryZeroWritesNoFile) {
  const fs::path dir = testing::fresh_test_dir();
  TrainOptions o;
  o.quiet = true;
  o.run_dir = dir;
  Trainer(config(0)).run(o);
  EXPECT_TRUE(fs::exists(dir / "summary.json"));
  EXPECT_FALSE(fs::exists(dir / kAttentionSnapshotsFile));
}

TEST(TrainerSnapshots, AResumedRunContinuesTheSnapshotsBitIdentically) {
  const fs::path dir = testing::fresh_test_dir();
  TrainOptions straight;
  straight.quiet = true;
  straight.run_dir = run_folder(dir / "straight");
  Trainer(config(3)).run(straight);
  const std::string reference = bytes_of(dir / "straight" / kAttentionSnapshotsFile);

  // Interrupted after step 13: the file holds 0 .. 12 and a resume continues from the checkpoint.
  TrainOptions first;
  first.quiet = true;
  first.run_dir = run_folder(dir / "resumed");
  first.stop_at_step = 14;
  Trainer(config(3)).run(first);
  EXPECT_EQ(read_attention_snapshots(dir / "resumed" / kAttentionSnapshotsFile).steps,
            (std::vector<int64_t>{0, 3, 6, 9, 12}));
  TrainOptions second = first;
  second.stop_at_step = -1;
  second.resume_from = dir / "resumed" / "checkpoint.bin";
  Trainer(config(3)).run(second);
  EXPECT_EQ(bytes_of(dir / "resumed" / kAttentionSnapshotsFile), reference);

  // Killed between writing the snapshots and the checkpoint: the file is ahead of the checkpoint (here:
  // the whole run's file); a resume drops the later snapshots and takes them again.
  TrainOptions killed = first;
  killed.run_dir = run_folder(dir / "killed");
  killed.stop_at_step = 8;
  Trainer(config(3)).run(killed);
  fs::copy_file(dir / "straight" / kAttentionSnapshotsFile, dir / "killed" / kAttentionSnapshotsFile,
                fs::copy_options::overwrite_existing);
  TrainOptions again = killed;
  again.stop_at_step = -1;
  again.resume_from = dir / "killed" / "checkpoint.bin";
  Trainer(config(3)).run(again);
  EXPECT_EQ(bytes_of(dir / "killed" / kAttentionSnapshotsFile), reference);
}

// snapshot_every 1, limit 4 over steps 0 .. 22: 0 1 2 3 -> thinned to 0 2 (every 2), 4 6 -> 0 4
// (every 4), 8 12 -> 0 8 (every 8), 16, and the final step 22.
TEST(TrainerSnapshots, ALimitThinsToEvenlySpacedSteps) {
  const fs::path dir = testing::fresh_test_dir();
  EXPECT_EQ(snapshots_of_run(config(1, 23, 4), dir / "straight").steps, (std::vector<int64_t>{0, 8, 16, 22}));

  // Interrupted after step 13 (kept: 0 8, every 8 from then on) and resumed: the same file.
  TrainOptions first;
  first.quiet = true;
  first.run_dir = run_folder(dir / "resumed");
  first.stop_at_step = 14;
  Trainer(config(1, 23, 4)).run(first);
  EXPECT_EQ(read_attention_snapshots(dir / "resumed" / kAttentionSnapshotsFile).steps, (std::vector<int64_t>{0, 8}));
  TrainOptions second = first;
  second.stop_at_step = -1;
  second.resume_from = dir / "resumed" / "checkpoint.bin";
  Trainer(config(1, 23, 4)).run(second);
  EXPECT_EQ(bytes_of(dir / "resumed" / kAttentionSnapshotsFile), bytes_of(dir / "straight" / kAttentionSnapshotsFile));
}

// With the default keys a paper-length run keeps between limit / 2 and limit snapshots.
TEST(TrainerSnapshots, DefaultsKeepFiftyToAHundred) {
  const RunConfig c = parse_run_config("model: {layers: 1, heads: 1}\n", "test.yaml", {}, registered_vocabulary());
  EXPECT_EQ(c.analysis.snapshot_every, 16);
  EXPECT_EQ(c.analysis.snapshot_limit, 100);
  for (const int64_t steps : {800, 900, 11000, 20000, 50000}) {
    const int64_t interval = snapshot_interval(c.analysis.snapshot_every, c.analysis.snapshot_limit, steps);
    const int64_t kept = (steps + interval - 1) / interval;
    EXPECT_GE(kept, 50) << steps;
    EXPECT_LT(kept, 100) << steps;
  }
}

TEST(TrainerSnapshots, AResumeRefusesAnotherRunsSnapshots) {
  const fs::path dir = testing::fresh_test_dir();
  TrainOptions o;
  o.quiet = true;
  o.run_dir = dir;
  o.stop_at_step = 8;
  Trainer(config(3)).run(o);
  AttentionSnapshots other = read_attention_snapshots(dir / kAttentionSnapshotsFile);
  other.roles[1] ^= 4;
  write_attention_snapshots(dir / kAttentionSnapshotsFile, other);
  o.stop_at_step = -1;
  o.resume_from = dir / "checkpoint.bin";
  try {
    Trainer(config(3)).run(o);
    FAIL() << "resumed with another run's snapshots";
  } catch (const AttentionSnapshotFileError& e) {
    EXPECT_NE(std::string(e.what()).find("written for another model or evaluation set"), std::string::npos) << e.what();
  }
}

// Resumes the interrupted run in `dir`: "" when it ran to the end, else why its snapshots were refused.
std::string resume_refusal(const RunConfig& c, const fs::path& dir) {
  TrainOptions o;
  o.quiet = true;
  o.run_dir = dir;
  o.resume_from = dir / "checkpoint.bin";
  try {
    Trainer(c).run(o);
    return "";
  } catch (const AttentionSnapshotFileError& e) {
    return e.what();
  }
}

TEST(TrainerSnapshots, AResumeRefusesAMissingDamagedOrChangedSnapshotFile) {
  const fs::path dir = testing::fresh_test_dir();
  TrainOptions o;
  o.quiet = true;
  o.run_dir = run_folder(dir / "interrupted");
  o.stop_at_step = 14;  // the checkpoint is at step 14, the file holds steps 0 3 6 9 12
  Trainer(config(3)).run(o);
  RunConfig other_seed = config(3);
  other_seed.seed += 1;
  o.run_dir = run_folder(dir / "other_seed");
  Trainer(other_seed).run(o);

  // The refusal of the run copied to `name` with its snapshot file changed by `change`; the refusal
  // comes before the run writes anything.
  const auto refusal = [&](const std::string& name, const std::function<void(const fs::path&)>& change) {
    const fs::path run = dir / name, file = run / kAttentionSnapshotsFile;
    fs::copy(dir / "interrupted", run, fs::copy_options::recursive);
    change(file);
    const std::string file_before = fs::exists(file) ? bytes_of(file) : "", metrics = bytes_of(run / "metrics.jsonl");
    const std::string why = resume_refusal(config(3), run);
    EXPECT_EQ(fs::exists(file) ? bytes_of(file) : "", file_before) << name;
    EXPECT_EQ(bytes_of(run / "metrics.jsonl"), metrics) << name;
    EXPECT_NE(why.find("attention snapshots " + file.string() + ": "), std::string::npos) << name << ": " << why;
    EXPECT_NE(why.find("a resume needs the snapshots of steps 0, 3, 6, 9, 12 that the checkpoint " +
                       (run / "checkpoint.bin").string() + " (step 14) recorded"),
              std::string::npos)
        << name << ": " << why;
    return why;
  };
  const auto write_bytes = [](const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  };
  EXPECT_NE(refusal("deleted", [](const fs::path& p) { fs::remove(p); }).find(": missing;"), std::string::npos);
  refusal("zeroed", [&](const fs::path& p) { write_bytes(p, std::string(fs::file_size(p), '\0')); });
  refusal("empty", [&](const fs::path& p) { write_bytes(p, ""); });
  refusal("truncated", [&](const fs::path& p) { write_bytes(p, bytes_of(p).substr(0, fs::file_size(p) / 2)); });
  const std::string changed = refusal("changed", [](const fs::path& p) {
    AttentionSnapshots s = read_attention_snapshots(p);
    s.mean[5] += 0.25f;
    write_attention_snapshots(p, s);
  });
  EXPECT_NE(changed.find("its maps differ from the ones the checkpoint"), std::string::npos) << changed;
  const std::string dropped = refusal("dropped", [](const fs::path& p) {
    AttentionSnapshots s = read_attention_snapshots(p);
    s.keep_multiples_of(6);
    write_attention_snapshots(p, s);
  });
  EXPECT_NE(dropped.find("holds snapshots of steps 0, 6, 12 before step 14"), std::string::npos) << dropped;
  refusal("another_seed", [&](const fs::path& p) {
    fs::copy_file(dir / "other_seed" / kAttentionSnapshotsFile, p, fs::copy_options::overwrite_existing);
  });
}

// Killed after a thinning rewrote the file and before the checkpoint that goes with it: the file is
// the run's own, thinned as the run was about to be. The resume accepts it and ends bit-identical.
// (snapshot_every 1, limit 4: the checkpoint at step 6 recorded 0 2 4; the file written at step 9
// holds 0 4 8.)
TEST(TrainerSnapshots, AFileThinnedAfterItsCheckpointIsAcceptedAndTheRunEndsBitIdentical) {
  const fs::path dir = testing::fresh_test_dir();
  snapshots_of_run(config(1, 23, 4), dir / "straight");
  const std::string straight = bytes_of(dir / "straight" / kAttentionSnapshotsFile);
  TrainOptions o;
  o.quiet = true;
  o.run_dir = run_folder(dir / "ahead");
  o.stop_at_step = 9;
  Trainer(config(1, 23, 4)).run(o);
  o.run_dir = run_folder(dir / "killed");
  o.stop_at_step = 6;
  Trainer(config(1, 23, 4)).run(o);
  EXPECT_EQ(read_attention_snapshots(dir / "killed" / kAttentionSnapshotsFile).steps, (std::vector<int64_t>{0, 2, 4}));
  fs::copy_file(dir / "ahead" / kAttentionSnapshotsFile, dir / "killed" / kAttentionSnapshotsFile,
                fs::copy_options::overwrite_existing);
  EXPECT_EQ(resume_refusal(config(1, 23, 4), dir / "killed"), "");
  EXPECT_EQ(bytes_of(dir / "killed" / kAttentionSnapshotsFile), straight);
}

}  // namespace
}  // namespace sinklab
