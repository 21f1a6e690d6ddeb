// apps/user_error.cpp: a std::bad_alloc that escapes a command (here: an evaluation set larger than the
// address space `ulimit -v` leaves, which the memory estimate, reading MemAvailable, cannot see) is one
// message and exit status 1, never an abort.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

TEST(UserError, OutOfMemoryIsOneMessageAndExitStatus1) {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer reserves terabytes of shadow address space at start-up, so under `ulimit -v` the
  // binary aborts before main(). The Release pass (scripts/test.sh) runs this test.
  GTEST_SKIP() << "ulimit -v cannot coexist with AddressSanitizer's shadow memory";
#endif
  const fs::path out = fs::temp_directory_path() / ("sinklab_out_of_memory_" + std::to_string(::getpid()));
  fs::remove_all(out);
  // 4 million evaluation inputs of 16 x (16 + 16) floats: 8 GiB, four times the 2 GiB address space.
  const testing::CliResult r = testing::run_command(
      "ulimit -v 2097152; " + testing::sinklab_binary() + " train " + SINKLAB_SOURCE_DIR +
      "/configs/paper/1x1_softmax.yaml --set task.eval_samples=4000000 --set train.max_steps=1 --set threads=1 --quiet"
      " --out " + out.string() + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("sinklab: error: out of memory (std::bad_alloc)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("terminate"), std::string::npos) << r.output;
  fs::remove_all(out);
}

}  // namespace
}  // namespace sinklab
