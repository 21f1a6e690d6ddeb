// Every command that reads a run's checkpoint refuses a FIFO planted as checkpoint.bin (and a device
// such as /dev/zero) at once, by name, with exit status 2: before core/io/file_read.h's ReadableFile,
// opening the FIFO waited for a writer forever. `report` does the same for an attention map .npy.
// Each command runs under `timeout`, so a hang fails the test instead of blocking it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "tests/apps/ci_tiny_run.h"
#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;

constexpr int kTimeoutExit = 124;  // timeout(1)'s status when it had to stop the command

class FifoInputs : public testing::CiTinyRun {
 protected:
  void SetUp() override {
    CiTinyRun::SetUp();
    copy_ = fs::temp_directory_path() / ("sinklab_fifo_inputs_" + std::to_string(::getpid()));
    fs::remove_all(copy_);
    fs::create_directories(copy_);
    fs::copy(*run_, copy_ / "run", fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(copy_); }

  // `sinklab args` stopped after 60 s; its exit status (124 when it hung) and output.
  static CliResult bounded(const std::string& args) {
    return testing::run_command("timeout -s KILL 60 " + testing::sinklab_binary() + " " + args + " 2>&1");
  }
  static void expect_refused(const CliResult& r, const std::string& named) {
    EXPECT_NE(r.exit_code, kTimeoutExit) << "hung";
    EXPECT_NE(r.exit_code, 137) << "hung (killed by timeout)";
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(named + ": is not a regular file"), std::string::npos) << r.output;
  }
  fs::path run() const { return copy_ / "run"; }
  fs::path out(const std::string& name) const { return copy_ / name; }

  fs::path copy_;
};

TEST_F(FifoInputs, EveryCommandRefusesAFifoCheckpointAtOnce) {
  const fs::path checkpoint = run() / "checkpoint.bin";
  fs::remove(checkpoint);
  ASSERT_EQ(::mkfifo(checkpoint.c_str(), 0600), 0);
  const std::string r = run().string();
  const std::string commands[] = {
      "eval " + r,
      "eval " + r + " --stream --window 16 --out " + out("stream.json").string(),
      "inspect " + r,
      "inspect " + r + " --eval",
      "export " + r + " --format safetensors --out " + out("model.safetensors").string(),
      "sample " + r + " --prompt 'In the' --tokens 4",
      "probe " + r + " --out " + out("probe").string(),
  };  // (error-vs-sink reads MSE runs only: it leaves this language model out before any checkpoint)
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    expect_refused(bounded(command), checkpoint.string());
  }
}

TEST_F(FifoInputs, ADeviceAsTheCheckpointIsNotRead) {
  const fs::path checkpoint = run() / "checkpoint.bin";
  fs::remove(checkpoint);
  fs::create_symlink("/dev/zero", checkpoint);
  for (const std::string command : {"eval ", "inspect "}) {
    SCOPED_TRACE(command);
    expect_refused(bounded(command + run().string()), checkpoint.string());
  }
}

TEST_F(FifoInputs, ReportDoesNotWaitOnAFifoAttentionMap) {
  const fs::path map = run() / "attention" / "layer0_head0_mean.npy";  // a map the report's heatmap reads
  ASSERT_TRUE(fs::is_regular_file(map)) << "the run has no " << map;
  fs::remove(map);
  ASSERT_EQ(::mkfifo(map.c_str(), 0600), 0);
  const CliResult r = bounded("report " + run().string() + " --no-render --out " + out("report").string());
  // The report goes on without the map (its figure is left out) and names the file; it never waits on it.
  EXPECT_NE(r.exit_code, kTimeoutExit) << "hung";
  EXPECT_NE(r.exit_code, 137) << "hung (killed by timeout)";
  EXPECT_NE(r.output.find(map.string() + ": is not a regular file"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace sinklab
