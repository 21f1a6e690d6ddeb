// `sinklab train` under faults, as a careless or unlucky user meets them: SIGKILL at random moments,
// Ctrl-C and the printed resume command, a full disk, a second writer, a finished or unfinished run
// in the way, a diverging model, symlinks planted in the run folder.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/text/shell_quote.h"
#include "tests/apps/cli_process.h"
#include "tests/support/run_files_without_timing.h"
#include "tests/support/small_tmpfs.h"
#include "run_files/run_folder_lock.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using testing::run_sinklab;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

using testing::without_timing;

class TrainReliability : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sinklab_reliability_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  // A run of a few seconds in the Release build.
  fs::path small_config(const std::string& train_extra = "") {
    return write("small.yaml",
                 "model: {layers: 2, heads: 2, residual: true}\noptimizer: {lr: 1.0e-3}\n"
                 "train: {batch_size: 32, max_steps: 1500, log_every: 10, eval_every: 100, stop_max_abs_error: 0" +
                     train_extra + "}\ntask: {eval_samples: 64}\nanalysis: {eval_attention_samples: 64}\nthreads: 1\n");
  }
  fs::path dir_;
};

bool wait_for_lines(const fs::path& file, int lines, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream in(file);
    int n = 0;
    for (std::string l; std::getline(in, l);) ++n;
    if (n >= lines) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Runs `config` straight, then again killed with SIGKILL at random moments and resumed until it finishes;
// both must end with the same files, bit for bit.
void expect_kills_and_resumes_bit_identical(const fs::path& dir_, const fs::path& config) {
  const fs::path reference = dir_ / "reference", killed = dir_ / "killed";
  const auto t0 = std::chrono::steady_clock::now();
  const auto straight = run_sinklab("train " + config.string() + " --out " + reference.string() + " --quiet");
  ASSERT_EQ(straight.exit_code, 0) << straight.output;
  const double full_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> moment(0.02, 0.6);
  SCOPED_TRACE("kill moments drawn with seed " + std::to_string(seed));
  int kills = 0, resumes = 0;
  std::string args = "train " + config.string() + " --out " + killed.string() + " --quiet";
  for (int attempt = 0; attempt < 5 && !fs::exists(killed / "summary.json"); ++attempt) {
    const pid_t pid = testing::start_sinklab(args, dir_ / "log.txt");
    std::this_thread::sleep_for(std::chrono::duration<double>(moment(rng) * full_seconds));
    kills += ::kill(pid, SIGKILL) == 0;
    testing::wait_exit_code(pid);
    if (fs::exists(killed / "summary.json")) break;
    // Either the folder resumes, or it says why not.
    if (fs::exists(killed / "checkpoint.bin")) {
      args = "train --resume " + killed.string() + " --quiet";
      ++resumes;
    } else {
      const auto refused = run_sinklab("train --resume " + killed.string());
      EXPECT_EQ(refused.exit_code, 2) << refused.output;
      args = "train " + config.string() + " --out " + killed.string() + " --quiet --force";
    }
  }
  if (!fs::exists(killed / "summary.json")) {
    const auto last = run_sinklab(args);
    ASSERT_EQ(last.exit_code, 0) << last.output;
  }
  EXPECT_GE(kills, 1);
  ::testing::Test::RecordProperty("kills", kills);
  ::testing::Test::RecordProperty("resumes", resumes);
  EXPECT_EQ(without_timing(reference / "metrics.jsonl"), without_timing(killed / "metrics.jsonl"));
  EXPECT_EQ(without_timing(reference / "summary.json"), without_timing(killed / "summary.json"));
  // Binary files: compared whole, without printing them.
  EXPECT_TRUE(slurp(reference / "checkpoint.bin") == slurp(killed / "checkpoint.bin")) << "checkpoint.bin differs";
  EXPECT_TRUE(slurp(reference / "attention/layer1_head1_mean.npy") == slurp(killed / "attention/layer1_head1_mean.npy"))
      << "attention maps differ";
  for (const auto& e : fs::directory_iterator(killed))
    EXPECT_NE(e.path().extension(), ".tmp") << "left behind: " << e.path();
}

TEST_F(TrainReliability, KilledAtRandomMomentsAndResumedIsBitIdentical) {
  expect_kills_and_resumes_bit_identical(dir_, small_config(", checkpoint_every: 100, checkpoint_seconds: 0.25"));
}

// bf16 products (train.precision) keep the guarantee: the weights, moments and data stream a checkpoint
// holds stay float32, and the bf16 kernel path is as deterministic as the float32 one.
TEST_F(TrainReliability, Bf16KilledAtRandomMomentsAndResumedIsBitIdentical) {
  expect_kills_and_resumes_bit_identical(
      dir_, small_config(", checkpoint_every: 100, checkpoint_seconds: 0.25, precision: bf16"));
}

// The printed command names this very binary (as it was started) and quotes a folder a shell would
// split or run (a space, a `;`), so it pastes into a shell as printed.
TEST_F(TrainReliability, TheResumeCommandPrintedOnCtrlCWorksAsPrinted) {
  const fs::path config = small_config();
  const fs::path out = dir_ / "my run; x", log = dir_ / "log.txt";
  const pid_t pid = testing::start_sinklab(
      {"train", config.string(), "--out", out.string(), "--seed", "5", "--threads", "1", "--set", "train.log_every=7"},
      log);
  ASSERT_TRUE(wait_for_lines(out / "metrics.jsonl", 3, 60)) << slurp(log);
  ::kill(pid, SIGINT);
  EXPECT_EQ(testing::wait_exit_code(pid), 128 + SIGINT);
  const std::string printed = slurp(log);
  const std::string marker = "continue with: ";
  const size_t at = printed.find(marker);
  ASSERT_NE(at, std::string::npos) << printed;
  const std::string command = printed.substr(at + marker.size(), printed.find('\n', at) - at - marker.size());
  EXPECT_EQ(command, testing::sinklab_binary() + " train --resume '" + out.string() + "'");
  const auto resumed = testing::run_command(command + " --quiet 2>&1");
  ASSERT_EQ(resumed.exit_code, 0) << command << "\n" << resumed.output;
  const nlohmann::json summary = nlohmann::json::parse(std::ifstream(out / "summary.json"));
  EXPECT_EQ(summary["seed"], 5);
  EXPECT_EQ(summary["steps"], 1500);
}

// A run trained in pieces names each piece in run.json, and says so when another build resumes it (the
// pieces are then not bit for bit one run): here run.json is made to look written by another revision.
TEST_F(TrainReliability, AResumeIsRecordedInRunJsonAndAnotherBuildIsNamed) {
  const fs::path config = small_config();
  const fs::path out = dir_ / "run", log = dir_ / "log.txt";
  const pid_t pid = testing::start_sinklab({"train", config.string(), "--out", out.string()}, log);
  ASSERT_TRUE(wait_for_lines(out / "metrics.jsonl", 3, 60)) << slurp(log);
  ::kill(pid, SIGINT);
  EXPECT_EQ(testing::wait_exit_code(pid), 128 + SIGINT);
  const std::string printed = slurp(log), marker = "interrupted at step ";
  const size_t at = printed.find(marker);
  ASSERT_NE(at, std::string::npos) << printed;
  const int64_t stopped_at = std::stoll(printed.substr(at + marker.size()));
  nlohmann::json info = nlohmann::json::parse(std::ifstream(out / "run.json"));
  ASSERT_FALSE(info.contains("resumed"));
  const std::string own_revision = info["git_revision"];
  info["git_revision"] = "0123456789ab";
  std::ofstream(out / "run.json", std::ios::trunc) << info.dump(2);

  const auto resumed = run_sinklab("train --resume " + out.string() + " --quiet");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("was started by git 0123456789ab"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find("resumes from step " + std::to_string(stopped_at) + " with git " + own_revision),
            std::string::npos)
      << resumed.output;
  info = nlohmann::json::parse(std::ifstream(out / "run.json"));
  EXPECT_EQ(info["git_revision"], "0123456789ab");  // the start's record stays
  ASSERT_EQ(info["resumed"].size(), 1u);
  EXPECT_EQ(info["resumed"][0]["from_step"], stopped_at);
  EXPECT_EQ(info["resumed"][0]["git_revision"], own_revision);
  EXPECT_EQ(info["resumed"][0]["kernel_path"], info["cpu"]["kernel_path"]);
  EXPECT_TRUE(fs::exists(out / "summary.json"));
}

TEST_F(TrainReliability, ResumingAFinishedRunIsRefusedAndChangesNothing) {
  const fs::path config = write("c.yaml",
                                "train: {max_steps: 20, log_every: 5, eval_every: 10}\ntask: {eval_samples: 32}\n"
                                "analysis: {eval_attention_samples: 32}\n");
  const fs::path out = dir_ / "run";
  ASSERT_EQ(run_sinklab("train " + config.string() + " --out " + out.string() + " --quiet").exit_code, 0);
  const std::string summary = slurp(out / "summary.json"), metrics = slurp(out / "metrics.jsonl");
  const auto r = run_sinklab("train --resume " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("finished run"), std::string::npos) << r.output;
  EXPECT_EQ(slurp(out / "summary.json"), summary);
  EXPECT_EQ(slurp(out / "metrics.jsonl"), metrics);
}

TEST_F(TrainReliability, AnUnfinishedRunIsNotOverwrittenWithoutForce) {
  const fs::path config = small_config();
  const fs::path out = dir_ / "run";
  const pid_t pid =
      testing::start_sinklab("train " + config.string() + " --out " + out.string() + " --quiet", dir_ / "log.txt");
  ASSERT_TRUE(wait_for_lines(out / "metrics.jsonl", 2, 60));
  ::kill(pid, SIGKILL);
  testing::wait_exit_code(pid);
  const std::string metrics = slurp(out / "metrics.jsonl");
  const auto again = run_sinklab("train " + config.string() + " --out " + out.string());
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(
      again.output.find("continue it with `" + testing::sinklab_binary() + " train --resume " + out.string() + "`"),
      std::string::npos)
      << again.output;
  EXPECT_EQ(slurp(out / "metrics.jsonl"), metrics) << "the refused run touched the log";
  const auto changed = run_sinklab("train --resume " + out.string() + " --set seed=9");
  EXPECT_EQ(changed.exit_code, 2) << changed.output;
  EXPECT_NE(changed.output.find("seed"), std::string::npos) << changed.output;
}

TEST_F(TrainReliability, TheUsersOwnConfigInTheRunFolderIsNeverOverwritten) {
  fs::create_directories(dir_ / "myexp");
  const std::string mine = "# my notes\nmodel: {layers: 1}\ntrain: {max_steps: 5}\n";
  const fs::path config = write("myexp/config.yaml", mine);
  const auto r = run_sinklab("train " + config.string() + " --out " + (dir_ / "myexp").string() + " --force");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("would overwrite the config file"), std::string::npos) << r.output;
  EXPECT_EQ(slurp(config), mine);
}

TEST_F(TrainReliability, ASecondWriterIsRefused) {
  const fs::path config = small_config();
  const fs::path out = dir_ / "run";
  RunFolderLock held(out);  // another sinklab process
  const auto r = run_sinklab("train " + config.string() + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("in use by another sinklab process (pid " + std::to_string(::getpid()) + ")"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out / "config.yaml"));
}

TEST_F(TrainReliability, ResumeNeedsARunFolderAndSaysSo) {
  const auto not_a_run = run_sinklab("train --resume " + dir_.string());
  EXPECT_EQ(not_a_run.exit_code, 2) << not_a_run.output;
  EXPECT_NE(not_a_run.output.find("not a sinklab run folder"), std::string::npos) << not_a_run.output;
  const auto device = run_sinklab("train --resume /dev/zero");
  EXPECT_EQ(device.exit_code, 2) << device.output;
  EXPECT_EQ(device.output.find("underflow"), std::string::npos) << device.output;
}

// A run stopped before its first checkpoint cannot resume: the message gives the command that starts
// it over, this binary's path first and the folder quoted for the shell.
TEST_F(TrainReliability, ResumeWithoutACheckpointGivesAPastableCommandToStartOver) {
  const fs::path config = write("c.yaml",
                                "train: {max_steps: 5, log_every: 5, eval_every: 0}\ntask: {eval_samples: 8}\n"
                                "analysis: {eval_attention_samples: 8}\n");
  const fs::path out = dir_ / "it's a run";
  ASSERT_EQ(run_sinklab("train " + shell_quote(config.string()) + " --out " + shell_quote(out.string()) + " --quiet")
                .exit_code,
            0);
  fs::remove(out / "summary.json");
  fs::remove(out / "checkpoint.bin");
  const auto r = run_sinklab("train --resume " + shell_quote(out.string()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("start it over with `" + testing::sinklab_binary() + " train CONFIG --out '" + dir_.string() +
                          "/it'\\''s a run' --force`"),
            std::string::npos)
      << r.output;
}

TEST_F(TrainReliability, ACorruptCheckpointInARunFolderIsRejectedBeforeAnythingIsWritten) {
  const fs::path config = write("c.yaml", "train: {max_steps: 20}\n");
  const fs::path out = dir_ / "run";
  const pid_t pid = testing::start_sinklab(
      "train " + config.string() + " --out " + out.string() + " --quiet --set train.max_steps=100000",
      dir_ / "log.txt");
  ASSERT_TRUE(wait_for_lines(out / "metrics.jsonl", 1, 60));
  ::kill(pid, SIGKILL);
  testing::wait_exit_code(pid);
  std::ofstream(out / "checkpoint.bin", std::ios::binary | std::ios::trunc) << "SINKCKPT but not really a checkpoint";
  const std::string metrics = slurp(out / "metrics.jsonl");
  const auto r = run_sinklab("train --resume " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("checkpoint " + (out / "checkpoint.bin").string()), std::string::npos) << r.output;
  EXPECT_EQ(slurp(out / "metrics.jsonl"), metrics);
}

TEST_F(TrainReliability, DivergingRunExitsThreeWithNullMetrics) {
  const fs::path config = write("c.yaml",
                                "model: {init_std: 1.0e30}\ntrain: {max_steps: 50}\ntask: {eval_samples: 32}\n"
                                "analysis: {eval_attention_samples: 32}\n");
  const fs::path out = dir_ / "run";
  const auto r = run_sinklab("train " + config.string() + " --out " + out.string() + " --quiet");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("diverged: training loss is"), std::string::npos) << r.output;
  const nlohmann::json s = nlohmann::json::parse(std::ifstream(out / "summary.json"));
  EXPECT_EQ(s["stop_reason"], "non_finite");
  EXPECT_TRUE(s["eval_max_abs_error"].is_null());
  EXPECT_EQ(s["steps"], 0);
}

TEST_F(TrainReliability, SymlinksPlantedInTheRunFolderAreNotWrittenThrough) {
  const fs::path config = write("c.yaml", "train: {max_steps: 20, log_every: 5}\ntask: {eval_samples: 32}\n"
                                          "analysis: {eval_attention_samples: 32}\n");
  const fs::path out = dir_ / "run", victim = write("victim.txt", "precious");
  fs::create_directories(out);
  for (const char* name : {"metrics.jsonl", "summary.json", "summary.json.tmp", "checkpoint.bin.tmp", "run.json"})
    fs::create_symlink(victim, out / name);
  const auto r = run_sinklab("train " + config.string() + " --out " + out.string() + " --quiet --force");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(slurp(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(out / "metrics.jsonl"));
}

TEST_F(TrainReliability, AFullDiskEndsTheRunWithTheFileAndTheErrorAndNoPartialFiles) {
  testing::SmallTmpfs disk(256 * 1024);
  if (!disk.mounted()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const fs::path config = write("c.yaml",
                                "model: {layers: 2, heads: 2, residual: true}\n"
                                "train: {max_steps: 200000, log_every: 1, eval_every: 0, stop_max_abs_error: 0}\n"
                                "task: {eval_samples: 32}\nanalysis: {eval_attention_samples: 32}\n");
  const fs::path out = disk.dir() / "run";
  const auto r = run_sinklab("train " + config.string() + " --out " + out.string() + " --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(out.string()), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out / "summary.json"));
  for (const auto& e : fs::directory_iterator(out)) {
    EXPECT_NE(e.path().extension(), ".tmp") << "left behind: " << e.path();
    if (e.is_regular_file()) {
      EXPECT_GT(fs::file_size(e.path()), 0u) << "empty file under a final name: " << e.path();
    }
  }
  const std::string metrics = slurp(out / "metrics.jsonl");
  ASSERT_FALSE(metrics.empty());
  EXPECT_EQ(metrics.back(), '\n') << "metrics.jsonl ends with a partial line";

  // A disk that is already full fails at once, before any training.
  fs::remove_all(out);
  std::ofstream filler(disk.dir() / "filler", std::ios::binary);
  const std::string block(4096, 'x');
  while (filler.write(block.data(), block.size())) {}
  filler.close();
  const auto full = run_sinklab("train " + config.string() + " --out " + out.string() + " --quiet");
  EXPECT_EQ(full.exit_code, 2) << full.output;
  EXPECT_NE(full.output.find("No space left on device"), std::string::npos) << full.output;
  EXPECT_FALSE(fs::exists(out / "metrics.jsonl"));
}

}  // namespace
}  // namespace sinklab
