// The language model end to end: configs/normlimits/ci_tiny.yaml trains from the repository root (on
// the committed KJV excerpt), its loss drops, summary.json and metrics.jsonl carry the sink statistics
// of a plain language model (BOS mass by row, Gu's sink score against its uniform baseline, their
// evolution), and `sinklab sample` generates reproducibly from the run and refuses bad requests with
// one clear message and exit status 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "run_files/run_summary.h"
#include "stats/sink_statistics.h"
#include "tests/apps/ci_tiny_run.h"
#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

const std::string kSource = SINKLAB_SOURCE_DIR;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("sinklab_text_lm_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// One ci_tiny run shared by the tests of this file (about a second of training).
class TextLmCommand : public testing::CiTinyRun {
 protected:
  static testing::CliResult sample(const std::string& args) {
    return testing::run_command(testing::sinklab_binary() + " sample " + run_->string() + " " + args + " 2>/dev/null");
  }
};

TEST_F(TextLmCommand, CiTinyTrainsAndRecordsTheLanguageModelStatistics) {
  // The terminal summary gives the evaluation loss in nats and in bits.
  EXPECT_TRUE(contains(trained_->output, " nats (")) << trained_->output;
  EXPECT_TRUE(contains(trained_->output, " bits)")) << trained_->output;
  std::ifstream config(*run_ / "config.yaml");
  std::stringstream config_text;
  config_text << config.rdbuf();
  EXPECT_TRUE(contains(config_text.str(), "corpus: " + kSource + "/tests/fixtures/corpus/kjv_excerpt.txt"))
      << "the corpus is recorded absolute:\n" << config_text.str();

  const std::vector<MetricsRecord> log = read_metrics(*run_ / "metrics.jsonl");
  ASSERT_EQ(log.size(), 11u);  // steps 0, 5, ..., 45 and the last one, 49
  EXPECT_LT(log.back().loss, log.front().loss - 1.0) << "the training loss drops from ln 64 = 4.16";
  ASSERT_TRUE(log.front().eval_loss.has_value());
  for (const MetricsRecord& r : log) {
    ASSERT_EQ(r.heads.size(), 4u);
    for (const HeadSinkStats& h : r.heads) {
      EXPECT_TRUE(std::isfinite(h.sink_score)) << "step " << r.step;  // the sink score's evolution
      EXPECT_TRUE(std::isfinite(h.bos_mass_mean)) << "step " << r.step;
      EXPECT_TRUE(std::isnan(h.bos_mass_nontrigger_mean)) << "a language model has no no-op rows";
    }
  }

  const RunSummary s = read_run_summary(*run_ / "summary.json");
  EXPECT_EQ(s.steps, 50);
  ASSERT_TRUE(s.eval_loss.has_value());
  EXPECT_LT(*s.eval_loss, *log.front().eval_loss - 0.5) << "the validation loss drops too";
  ASSERT_TRUE(s.eval_accuracy.has_value());
  EXPECT_EQ(s.seq_len, 64);
  EXPECT_DOUBLE_EQ(s.uniform_baseline, uniform_causal_baseline(64));
  EXPECT_GE(s.sink_rate, 0.0);
  EXPECT_LE(s.sink_rate, 1.0);
  ASSERT_EQ(s.heads.size(), 4u);
  for (const HeadSinkStats& h : s.heads) {
    ASSERT_EQ(h.bos_mass_by_row.size(), 64u);
    EXPECT_NEAR(h.bos_mass_by_row[0], 1.0, 1e-6) << "softmax row 0 sees only BOS";
    for (const double m : h.bos_mass_by_row) EXPECT_TRUE(m >= 0.0 && m <= 1.0 + 1e-6) << m;
    EXPECT_TRUE(std::isfinite(h.sink_score));
  }
}

TEST_F(TextLmCommand, GreedySamplingIsDeterministicAndContinuesThePrompt) {
  const std::string prompt = "In the beginning";
  const testing::CliResult a = sample("--prompt '" + prompt + "' --tokens 80");  // a shell command line
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(a.output.size(), prompt.size() + 80 + 1) << a.output;  // one byte per token, then '\n'
  EXPECT_EQ(a.output.rfind(prompt, 0), 0u) << a.output;
  EXPECT_EQ(sample("--prompt '" + prompt + "' --tokens 80").output, a.output);
  // The run's checkpoint given explicitly is the same model.
  EXPECT_EQ(sample("--prompt '" + prompt + "' --tokens 80 --checkpoint " + (*run_ / "checkpoint.bin").string()).output,
            a.output);
}

// A million tokens take minutes: the text appears as it is generated, not all at the end (it printed
// nothing for minutes), and what was streamed is the text a shorter generation prints whole.
TEST_F(TextLmCommand, ALongGenerationPrintsItsTokensAsTheyAreDrawn) {
  const fs::path out = fresh_dir("stream");
  fs::create_directories(out);
  const pid_t pid =
      testing::start_sinklab({"sample", run_->string(), "--prompt", "And", "--tokens", "1000000"}, out / "text");
  std::string streamed;
  for (int i = 0; i < 600 && streamed.size() < 200; ++i) {  // up to a minute on a busy machine
    ::usleep(100'000);
    std::ifstream in(out / "text");
    streamed.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  fs::remove_all(out);
  ASSERT_GE(streamed.size(), 200u) << "the first tokens of a long generation were not printed while it ran";
  const size_t tokens = streamed.size() - 3;  // the prompt's 3 bytes, then one byte per token
  const testing::CliResult whole = sample("--prompt And --tokens " + std::to_string(tokens));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  EXPECT_EQ(whole.output, streamed + "\n");
}

TEST_F(TextLmCommand, TemperatureSamplingIsReproducibleFromItsSeed) {
  const testing::CliResult a = sample("--prompt And --tokens 60 --temperature 1 --seed 5");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(sample("--prompt And --tokens 60 --temperature 1 --seed 5").output, a.output);
  EXPECT_NE(sample("--prompt And --tokens 60 --temperature 1 --seed 6").output, a.output);
  EXPECT_NE(sample("--prompt And --tokens 60").output, a.output);
}

TEST_F(TextLmCommand, BadRequestsAreOneClearError) {
  const std::string run = run_->string();
  const struct {
    std::string args, message;
  } cases[] = {
      {"sample /nonexistent/sinklab_run --prompt a --tokens 3", "/nonexistent/sinklab_run: no such run folder"},
      {"sample " + run + " --prompt a --tokens 3 --temperature -1",
       "--temperature: expected a number >= 0 (0 = greedy), got '-1'"},
      {"sample " + run + " --prompt a --tokens 3 --temperature warm",
       "--temperature: expected a number >= 0 (0 = greedy), got 'warm'"},
      {"sample " + run + " --prompt a --tokens 3x", "--tokens: expected a whole number in 0 .. 1000000, got '3x'"},
      {"sample " + run + " --prompt a@b --tokens 3", "--prompt: the character vocabulary has no '@' (at byte 1)"},
      {"sample " + run + " --prompt a --tokens 3 --checkpoint /nonexistent/checkpoint.bin",
       "/nonexistent/checkpoint.bin: no such checkpoint file"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const testing::CliResult r = testing::run_sinklab(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "sinklab: error: " + c.message)) << r.output;
  }
}

TEST_F(TextLmCommand, ARunOfAnotherTaskIsRefused) {
  const fs::path dir = fresh_dir("copy");
  const testing::CliResult trained = testing::run_sinklab(
      "train " + kSource + "/configs/tasks/copy.yaml --set train.max_steps=1 --set task.eval_samples=10"
      " --set analysis.eval_attention_samples=10 --quiet --out " + dir.string());
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const testing::CliResult r = testing::run_sinklab("sample " + dir.string() + " --prompt a --tokens 3");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "is a run of task copy; sinklab sample needs a language model (task.name: text_lm)"))
      << r.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
