// `sinklab train` as a user runs it: broken configs and flags give one clear message (what and
// where) and exit code 2 with nothing written; a good config writes a complete run directory.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_process.h"

namespace {

namespace fs = std::filesystem;

using Result = sinklab::testing::CliResult;

Result run(const std::string& args) { return sinklab::testing::run_sinklab(args); }

class TrainCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sinklab_cli_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  void expect_user_error(const std::string& args, std::initializer_list<std::string> fragments) {
    const fs::path out = dir_ / "run";
    const Result r = run(args + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const std::string& f : fragments)
      EXPECT_NE(r.output.find(f), std::string::npos) << "missing '" << f << "' in:\n" << r.output;
    EXPECT_FALSE(fs::exists(out)) << "a failed run must write nothing";
  }
  fs::path dir_;
};

TEST_F(TrainCommand, UnknownKeySaysWhereAndSuggests) {
  const fs::path c = write("c.yaml", "model:\n  layers: 1\n  attention:\n    normalizr: relu\n");
  expect_user_error("train " + c.string(), {"c.yaml:4", "model.attention.normalizr", "normalizer"});
}

TEST_F(TrainCommand, WrongTypeSaysWhere) {
  const fs::path c = write("c.yaml", "train:\n  batch_size: many\n");
  expect_user_error("train " + c.string(), {"c.yaml:2", "train.batch_size"});
}

TEST_F(TrainCommand, NegativeLearningRateIsRejected) {
  const fs::path c = write("c.yaml", "optimizer:\n  lr: -0.001\n");
  expect_user_error("train " + c.string(), {"c.yaml:2", "optimizer.lr"});
}

TEST_F(TrainCommand, MissingConfigFile) {
  expect_user_error("train /nonexistent/paper.yaml", {"/nonexistent/paper.yaml"});
}

TEST_F(TrainCommand, UnknownNormalizerListsKnownOnes) {
  const fs::path c = write("c.yaml", "model:\n  attention:\n    normalizer: softmaxx\n");
  expect_user_error("train " + c.string(), {"c.yaml:3", "softmaxx", "relu", "softmax"});
}

TEST_F(TrainCommand, BadOverride) {
  const fs::path c = write("c.yaml", "seed: 1\n");
  expect_user_error("train " + c.string() + " --set model.hedas=2", {"model.hedas", "heads"});
}

// A corrupt checkpoint inside a run folder: tests/apps/train_reliability_test.cpp. Here: --resume
// names a run folder or its checkpoint, never a stray file, and keeps the run in its own folder.
TEST_F(TrainCommand, ResumeFromAStrayOrMissingCheckpointIsRejectedBeforeAnythingIsWritten) {
  const fs::path c = write("c.yaml", "seed: 1\n");
  const fs::path ckpt = write("bad.bin", "SINKCKPT but not really a checkpoint");
  const Result stray = run("train --resume " + ckpt.string());
  EXPECT_EQ(stray.exit_code, 2) << stray.output;
  EXPECT_NE(stray.output.find("not a sinklab run folder"), std::string::npos) << stray.output;
  expect_user_error("train " + c.string() + " --resume " + ckpt.string(), {"bad.bin", "leave out --out"});
  expect_user_error("train " + c.string() + " --resume " + (dir_ / "missing.bin").string(),
                    {"missing.bin", "checkpoint"});
  EXPECT_FALSE(fs::exists(dir_ / "config.yaml"));
}

TEST_F(TrainCommand, UnknownFlagIsAUsageError) {
  const fs::path c = write("c.yaml", "seed: 1\n");
  const Result r = run("train " + c.string() + " --frobnicate");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("frobnicate"), std::string::npos) << r.output;
}

// A one-step run, to see what the flags turned into.
constexpr const char* kTinyRun =
    "train: {batch_size: 4, max_steps: 1, log_every: 1, eval_every: 0}\n"
    "task: {eval_samples: 4}\nanalysis: {eval_attention_samples: 4}\n";

TEST_F(TrainCommand, SeedFlagTakesTheFullUnsignedRangeLikeSetSeed) {
  const fs::path c = write("c.yaml", kTinyRun);
  const fs::path out = dir_ / "run";
  const Result r = run("train " + c.string() + " --out " + out.string() + " --seed 18446744073709551615 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json summary = nlohmann::json::parse(std::ifstream(out / "summary.json"));
  EXPECT_EQ(summary["seed"].get<uint64_t>(), 18446744073709551615ULL);
  std::ifstream written(out / "config.yaml");
  const std::string text((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("seed: 18446744073709551615\n"), std::string::npos) << text;
}

TEST_F(TrainCommand, SeedFlagRejectsWhatSetSeedRejects) {
  const fs::path c = write("c.yaml", kTinyRun);
  expect_user_error("train " + c.string() + " --seed 18446744073709551616", {"seed", "out of range"});
  expect_user_error("train " + c.string() + " --seed -1", {"seed", "non-negative integer, got -1"});
  expect_user_error("train " + c.string() + " --seed=-5", {"seed", "non-negative integer, got -5"});
  // Named as typed, not as the override it travels as ("--set seed=abc").
  expect_user_error("train " + c.string() + " --seed abc",
                    {"--seed abc: seed: expected a non-negative integer, got 'abc'"});
  expect_user_error("train " + c.string() + " --seed 1.5", {"seed", "no decimal point"});
}

TEST_F(TrainCommand, ThreadsAboveTheLimitNameThreadsBeforeOpenMpStarts) {
  const fs::path c = write("c.yaml", kTinyRun);
  expect_user_error("train " + c.string() + " --threads 2000", {"threads: must be [1, 256], got 2000"});
  // Like --seed, the flag is checked by the loader: one message and exit code 2 for every bad value.
  expect_user_error("train " + c.string() + " --threads 0", {"threads: must be >= 1, got 0"});
  expect_user_error("train " + c.string() + " --threads 99999999999",
                    {"threads: integer 99999999999 is out of range"});
  expect_user_error("train " + c.string() + " --threads abc",
                    {"--threads abc: threads: expected an integer, got 'abc'"});
  const Result set = run("train " + c.string() + " --set threads=abc --out " + (dir_ / "run").string());
  EXPECT_NE(set.output.find("--set threads=abc: threads:"), std::string::npos) << set.output;
}

TEST_F(TrainCommand, InvalidUtf8NameIsRejectedBeforeAnythingIsWritten) {
  const fs::path c = write("c.yaml", std::string("name: bad\xff\n") + kTinyRun);
  expect_user_error("train " + c.string(), {"c.yaml:1", "name", "not valid UTF-8"});
  const fs::path ok = write("ok.yaml", kTinyRun);
  expect_user_error("train " + ok.string() + " --set 'name=x\xc3('", {"name", "not valid UTF-8"});
}

TEST_F(TrainCommand, NameThatIsNotOneFolderNameIsRejected) {
  const fs::path c = write("c.yaml", kTinyRun);
  expect_user_error("train " + c.string() + " --set name=../../x", {"name", "single folder name"});
  expect_user_error("train " + c.string() + " --set name=/tmp/abs", {"name", "single folder name"});
}

TEST_F(TrainCommand, NameFlagThatIsNotOneFolderNameIsOneClearError) {
  const fs::path c = write("c.yaml", kTinyRun);
  expect_user_error("train " + c.string() + " --name a/b", {"--name: the run name must be a single folder name"});
  expect_user_error("train " + c.string() + " --name=-x", {"--name: the run name must not start with '-'"});
}

// Without --out, the run is named after what ran: the config's name, each flag that changes a value of
// the file, and the seed; the same name titles its summary.
TEST_F(TrainCommand, DefaultRunNameSaysWhatTheFlagsChanged) {
  write("1x1_softmax.yaml", std::string("model: {attention: {normalizer: softmax}}\n") + kTinyRun);
  const auto train_here = [&](const std::string& flags) {
    return sinklab::testing::run_sinklab_in(dir_.string(), "train 1x1_softmax.yaml --quiet " + flags);
  };
  Result r = train_here("--set model.attention.normalizer=relu --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path relu = dir_ / "runs/1x1_softmax-normalizer=relu-seed3";
  ASSERT_TRUE(fs::exists(relu / "summary.json")) << r.output;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(relu / "summary.json"))["name"], "1x1_softmax-normalizer=relu");
  // An override that gives the file's own value changes nothing, so it names nothing.
  r = train_here("--set model.attention.normalizer=softmax --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "runs/1x1_softmax-seed3/summary.json")) << r.output;
  // --name names it outright.
  r = train_here("--set model.attention.normalizer=relu --seed 3 --name mine");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(dir_ / "runs/mine-seed3/summary.json"))["name"], "mine");
}

// The head table at the end of a run fits 120 columns and says what --wide adds; --wide shows it all.
TEST_F(TrainCommand, HeadTableFitsTheTerminalAndWideShowsEveryColumn) {
  const fs::path c = write("c.yaml", std::string("model: {attention: {normalizer: softmax}}\n") + kTinyRun);
  const auto table_of = [](const std::string& args) {  // stdout: the table (progress and notes go to stderr)
    return sinklab::testing::run_command(sinklab::testing::sinklab_binary() + " " + args + " 2>/dev/null");
  };
  Result narrow = table_of("train " + c.string() + " --out " + (dir_ / "narrow").string());
  ASSERT_EQ(narrow.exit_code, 0) << narrow.output;
  std::istringstream lines(narrow.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("run directory:", 0) != 0) {
      EXPECT_LE(line.size(), 120u) << line;
    }
  }
  EXPECT_NE(narrow.output.find("(--wide adds: "), std::string::npos) << narrow.output;
  const auto header = [](const std::string& output) {
    const size_t at = output.find("layer head");
    return at == std::string::npos ? std::string() : output.substr(at, output.find('\n', at) - at);
  };
  EXPECT_EQ(header(narrow.output).find("BOS@all"), std::string::npos) << narrow.output;
  Result wide = table_of("train " + c.string() + " --wide --out " + (dir_ / "wide").string());
  ASSERT_EQ(wide.exit_code, 0) << wide.output;
  EXPECT_EQ(wide.output.find("(--wide adds: "), std::string::npos) << wide.output;
  EXPECT_NE(header(wide.output).find("BOS@all"), std::string::npos) << wide.output;
}

// The end of a run says where its time went, and summary.json records it: five phases that add up to at
// least the run's wall_seconds (which starts later, at the first step's setup, and ends before the writing).
TEST_F(TrainCommand, TheRunSaysWhereItsTimeWentAndSummaryJsonRecordsIt) {
  const fs::path c = write("c.yaml", kTinyRun);
  const fs::path out = dir_ / "run";
  const Result r = run("train " + c.string() + " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t line = r.output.find("\ntime: setup ");
  ASSERT_NE(line, std::string::npos) << r.output;
  const std::string text = r.output.substr(line + 1, r.output.find('\n', line + 1) - line - 1);
  for (const char* part : {", steps ", ", evaluations ", ", analysis ", ", writing ", "; total "})
    EXPECT_NE(text.find(part), std::string::npos) << text;
  const nlohmann::json summary = nlohmann::json::parse(std::ifstream(out / "summary.json"));
  ASSERT_TRUE(summary.contains("time_seconds")) << summary.dump();
  double total = 0;
  for (const char* phase : {"setup", "steps", "evaluations", "analysis", "writing"}) {
    const double seconds = summary["time_seconds"][phase].get<double>();
    EXPECT_GE(seconds, 0) << phase;
    total += seconds;
  }
  EXPECT_GT(summary["time_seconds"]["steps"].get<double>(), 0);
  EXPECT_GT(summary["time_seconds"]["writing"].get<double>(), 0);  // the checkpoints
  EXPECT_GE(total, summary["wall_seconds"].get<double>());
}

// --quiet prints errors and one line with the result, nothing else (it printed the head table: ~25 lines).
// train.precision: bf16 where oneDNN has no bf16 instructions runs emulated and says so once at start-up,
// --quiet or not; run.json records the precision and the path. SINKLAB_MAX_ISA=avx2 makes any x86-64 CPU
// one; on AArch64 every CPU is one (oneDNN 2.6 has no AArch64 bf16 matmul), at any level.
TEST_F(TrainCommand, Bf16WithoutBf16InstructionsSaysItIsEmulatedAndRunJsonRecordsIt) {
#if defined(__aarch64__)
  const std::string level_without_bf16 = "neon";
#else
  const std::string level_without_bf16 = "avx2";
#endif
  const fs::path c = write("c.yaml",
                           "model: {layers: 1, heads: 1}\ntrain: {batch_size: 8, max_steps: 3, log_every: 1}\n"
                           "task: {eval_samples: 16}\nanalysis: {eval_attention_samples: 16}\nthreads: 1\n");
  const fs::path out = dir_ / "emulated";
  const Result r = sinklab::testing::run_command("SINKLAB_MAX_ISA=" + level_without_bf16 + " " +
                                                 sinklab::testing::sinklab_binary() + " train " + c.string() +
                                                 " --set train.precision=bf16 --quiet --out " + out.string() + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string note = "train.precision: bf16 runs emulated here";
  ASSERT_NE(r.output.find(note), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(note), r.output.rfind(note)) << "said more than once:\n" << r.output;
  const nlohmann::json info = nlohmann::json::parse(std::ifstream(out / "run.json"));
  EXPECT_EQ(info["precision"]["train_matmuls"], "bf16");
  EXPECT_EQ(info["precision"]["evaluation"], "float32");
  EXPECT_EQ(info["precision"]["bf16_native"], false);
  EXPECT_EQ(info["precision"]["bf16_implementation"].get<std::string>().rfind("emulated:", 0), 0u);
  // float32, the default, has no note and no bf16 entries.
  const fs::path plain = dir_ / "float32";
  const Result f = run("train " + c.string() + " --quiet --out " + plain.string());
  ASSERT_EQ(f.exit_code, 0) << f.output;
  EXPECT_EQ(f.output.find("emulated"), std::string::npos) << f.output;
  const nlohmann::json plain_info = nlohmann::json::parse(std::ifstream(plain / "run.json"));
  EXPECT_EQ(plain_info["precision"]["train_matmuls"], "float32");
  EXPECT_FALSE(plain_info["precision"].contains("bf16_native"));
  // --version names the bf16 path too.
  EXPECT_NE(run("--version").output.find("bf16 matmul (train.precision: bf16): "), std::string::npos);
}

TEST_F(TrainCommand, QuietPrintsOneLineWithTheResult) {
  const fs::path c = write("c.yaml", kTinyRun);  // threads 1: the busy-machine warning never applies
  const fs::path out = dir_ / "run";
  const Result r = run("train " + c.string() + " --quiet --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_EQ(r.output.rfind("c: max_steps after ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("; run directory: " + out.string() + "\n"), std::string::npos) << r.output;
}

// Without --quiet, a config that sets no `threads` says what was chosen.
TEST_F(TrainCommand, TheDefaultThreadCountIsSaid) {
  const fs::path c = write("c.yaml", kTinyRun);
  const Result r = run("train " + c.string() + " --out " + (dir_ / "run").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("sinklab: threads 1 (the default: the config sets no `threads`)"), std::string::npos)
      << r.output;
  const Result given = run("train " + c.string() + " --threads 1 --out " + (dir_ / "given").string());
  EXPECT_EQ(given.output.find("the default"), std::string::npos) << given.output;
}

TEST_F(TrainCommand, ConfigTooLargeForMemoryIsRefusedBeforeAllocating) {
  const fs::path c = write("c.yaml", kTinyRun);
  expect_user_error("train " + c.string() + " --set train.batch_size=1000000 --set task.seq_len=4096",
                    {"train.batch_size", "estimated memory", "available", "train.batch_size=1000000"});
}

TEST_F(TrainCommand, TinySoftmaxTemperatureNamesTheKey) {
  const fs::path c = write("c.yaml", kTinyRun);
  expect_user_error("train " + c.string() + " --set model.attention.normalizer.temperature=1e-300",
                    {"model.attention.normalizer.temperature", "must be [1e-20, 1e+20]"});
}

TEST_F(TrainCommand, GoodConfigWritesACompleteRunDirectory) {
  const fs::path c = write("tiny.yaml",
                           "model: {layers: 2, heads: 2, residual: true}\noptimizer: {lr: 1.0e-3}\n"
                           "train: {batch_size: 16, max_steps: 30, log_every: 10, eval_every: 10}\n"
                           "task: {eval_samples: 50}\nanalysis: {eval_attention_samples: 50}\n");
  const fs::path out = dir_ / "run";
  const Result r = run("train " + c.string() + " --out " + out.string() + " --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* f :
       {"config.yaml", "metrics.jsonl", "summary.json", "run.json", "checkpoint.bin", "attention/layer1_head1_mean.npy",
        "attention/layer0_head0_std.npy", "attention/layer0_head0_sample0.npy"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  const nlohmann::json summary = nlohmann::json::parse(std::ifstream(out / "summary.json"));
  EXPECT_EQ(summary["seed"], 3);
  EXPECT_EQ(summary["heads"].size(), 4u);
  const nlohmann::json info = nlohmann::json::parse(std::ifstream(out / "run.json"));
  EXPECT_TRUE(info.contains("git_revision"));
  EXPECT_TRUE(info["libraries"].contains("onednn"));
  // The kernel path the bits depend on, and what it is made of; the same as `sinklab --version` says.
  const std::string path = info["cpu"]["kernel_path"];
  const nlohmann::json& cpu = info["cpu"];
  EXPECT_EQ(path, cpu["kernel_level"].get<std::string>() + cpu["kernel_vector_bits"].get<std::string>() + "+onednn:" +
                      cpu["onednn_isa"].get<std::string>());
  EXPECT_FALSE(info["cpu"]["model"].get<std::string>().empty());
  EXPECT_FALSE(info["cpu"]["features"].empty());
  EXPECT_NE(run("--version").output.find("kernel path: " + path), std::string::npos);
  EXPECT_NE(r.output.find("BOS@non-trig"), std::string::npos) << r.output;
  // 30 steps logged every 10: steps 0, 10, 20, and the last one, 29.
  std::ifstream metrics(out / "metrics.jsonl");
  int lines = 0;
  for (std::string line; std::getline(metrics, line);) lines += !line.empty();
  EXPECT_EQ(lines, 4);
  // A finished run is not overwritten by accident.
  const Result again = run("train " + c.string() + " --out " + out.string() + " --quiet");
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find("--force"), std::string::npos) << again.output;
  // --force replaces it whole: the old run's eval/, export/ and report/ files go with it.
  for (const char* folder : {"eval", "export", "report"}) {
    std::filesystem::create_directories(out / folder);
    std::ofstream(out / folder / "old.json") << "{}";
  }
  std::ofstream(out / "notes.txt") << "the user's own";
  const Result forced = run("train " + c.string() + " --out " + out.string() + " --quiet --force");
  ASSERT_EQ(forced.exit_code, 0) << forced.output;
  for (const char* folder : {"eval", "export", "report"}) EXPECT_FALSE(std::filesystem::exists(out / folder)) << folder;
  EXPECT_TRUE(std::filesystem::exists(out / "notes.txt"));
}

}  // namespace
