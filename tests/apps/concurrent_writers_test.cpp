// Two commands writing one run folder at once, as scripts do (docs/reliability.md, "Two commands on one
// folder at once"): reports take turns on the report folder's lock, evals both write through temporary
// names of their own. Either way every one of them exits 0 and leaves complete files, round after round.
// Three at a time, for a few rounds: with the one shared "NAME.tmp" of before, one failed in most rounds.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

constexpr int kWriters = 3, kRounds = 5;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Files under dir whose names are temporaries (core/io/file_write.h: they end in ".tmp").
std::vector<std::string> temporaries_under(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".tmp") found.push_back(e.path().string());
  return found;
}

class ConcurrentWriters : public ::testing::Test {
 protected:
  // One tiny trained run for the suite: the 1x1 paper config, two steps.
  static void SetUpTestSuite() {
    root_ = new fs::path(fs::temp_directory_path() / ("sinklab_concurrent_writers_" + std::to_string(::getpid())));
    fs::remove_all(*root_);
    fs::create_directories(*root_);
    trained_ = new testing::CliResult(testing::run_sinklab(
        "train " + std::string(SINKLAB_SOURCE_DIR) + "/configs/paper/1x1_softmax.yaml --set train.max_steps=2 --out " +
        run().string() + " --quiet"));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*root_);
    delete root_;
    delete trained_;
  }
  void SetUp() override { ASSERT_EQ(trained_->exit_code, 0) << trained_->output; }

  static fs::path run() { return *root_ / "run"; }

  // Starts kWriters copies of `args` at once and waits for all; each one's exit status and output.
  static std::vector<testing::CliResult> run_at_once(const std::string& args, int round) {
    std::vector<pid_t> pids;
    std::vector<fs::path> logs;
    for (int w = 0; w < kWriters; ++w) {
      logs.push_back(*root_ / ("round" + std::to_string(round) + "_writer" + std::to_string(w) + ".log"));
      pids.push_back(testing::start_sinklab(args, logs.back()));
    }
    std::vector<testing::CliResult> results;
    for (size_t w = 0; w < pids.size(); ++w) results.push_back({testing::wait_exit_code(pids[w]), read_text(logs[w])});
    return results;
  }

  inline static fs::path* root_ = nullptr;
  inline static testing::CliResult* trained_ = nullptr;
};

TEST_F(ConcurrentWriters, TwoReportsOnOneRunFolderBothSucceed) {
  const fs::path out = run() / "report";
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    for (const testing::CliResult& r : run_at_once("report " + run().string() + " --no-render", round)) {
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_NE(r.output.find("report: " + (out / "index.html").string()), std::string::npos) << r.output;
    }
    // The report of whichever wrote last, whole.
    const std::string page = read_text(out / "index.html");
    EXPECT_NE(page.find("</html>"), std::string::npos) << "index.html is cut short";
    EXPECT_NE(read_text(out / "summary.md"), "");
    EXPECT_NE(read_text(out / "explorer.html").find("</html>"), std::string::npos);
    for (const char* figure : {"attention", "loss_vs_step"}) {
      EXPECT_NE(read_text(out / "figures" / (std::string(figure) + ".gp")), "") << figure;
      EXPECT_NE(read_text(out / "figures" / (std::string(figure) + ".dat")), "") << figure;
    }
    EXPECT_EQ(temporaries_under(out), std::vector<std::string>{});
  }
}

TEST_F(ConcurrentWriters, TwoEvalsOnOneRunFolderBothSucceed) {
  const fs::path out = run() / "eval" / "none.json";
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    for (const testing::CliResult& r : run_at_once("eval " + run().string(), round)) {
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_NE(r.output.find("wrote " + out.string()), std::string::npos) << r.output;
    }
    std::ifstream in(out);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);  // a whole file parses
    ASSERT_FALSE(j.is_discarded()) << "eval/none.json is not one complete JSON document";
    EXPECT_EQ(j["mode"], "none") << j.dump().substr(0, 200);
    EXPECT_TRUE(j["eval_mse"].is_number()) << j.dump().substr(0, 200);
    EXPECT_EQ(temporaries_under(run() / "eval"), std::vector<std::string>{});
  }
}

// A writer killed between its write and its rename leaves its temporary: nothing reads it, whatever it is
// (half a checkpoint, a FIFO), and the next `train` in the folder (here a --resume that extends the run)
// removes it once it holds the folder's lock.
TEST_F(ConcurrentWriters, AKilledWritersTemporaryIsIgnoredAndTheNextTrainRemovesIt) {
  const fs::path dir = *root_ / "killed";
  const testing::CliResult trained = testing::run_sinklab("train " + std::string(SINKLAB_SOURCE_DIR) +
                                                          "/configs/paper/1x1_softmax.yaml --set train.max_steps=2 "
                                                          "--out " + dir.string() + " --quiet");
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const std::vector<fs::path> stale = {dir / "checkpoint.bin.99999-deadbeef.tmp", dir / "summary.json.tmp",
                                       dir / "attention" / "layer0_head0_mean.npy.99999-0badf00d.tmp"};
  for (const fs::path& path : stale) std::ofstream(path) << "half";
  ASSERT_EQ(::mkfifo((dir / "run.json.99999-00c0ffee.tmp").c_str(), 0644), 0);
  for (const std::string& args : {"eval " + dir.string(), "report " + dir.string() + " --no-render",
                                  "inspect " + dir.string()}) {
    const testing::CliResult r = testing::run_sinklab(args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  }
  const testing::CliResult resumed =
      testing::run_sinklab("train --resume " + dir.string() + " --set train.max_steps=3 --quiet");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(temporaries_under(dir), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir / "run.json.99999-00c0ffee.tmp")));
}

}  // namespace
}  // namespace sinklab
