#include "sweep/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>

#include "sweep/sweep_error.h"
#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::read_file;
using testing::ScratchDir;

TEST(ChildProcess, SendsOutputToTheLogAndSetsEnvironment) {
  ScratchDir dir;
  ChildSpec spec{"/bin/sh", {"-c", "echo out $SWEEP_TEST_VAR; echo err >&2; exit 4"}, dir / "log.txt",
                 {{"SWEEP_TEST_VAR", "42"}}};
  ChildProcess child = ChildProcess::spawn(spec);
  const ExitStatus status = child.wait();
  EXPECT_FALSE(status.signaled);
  EXPECT_EQ(status.code, 4);
  EXPECT_EQ(status.describe(), "exit 4");
  EXPECT_EQ(read_file(dir / "log.txt"), "out 42\nerr\n");
}

TEST(ChildProcess, AHandleThatDiesTakesItsChildAlong) {
  ScratchDir dir;
  pid_t pid = 0;
  {
    ChildProcess child = ChildProcess::spawn({"/bin/sleep", {"30"}, dir / "log.txt", {}});
    pid = child.pid();
    EXPECT_FALSE(child.poll().has_value());  // still sleeping
  }
  EXPECT_EQ(kill(pid, 0), -1);  // terminated and reaped: not even a zombie is left
  EXPECT_EQ(errno, ESRCH);
}

TEST(ChildProcess, UnstartableProgramIsAClearError) {
  ScratchDir dir;
  try {
    ChildProcess::spawn({dir / "missing-binary", {}, dir / "log.txt", {}});
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot start"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing-binary"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sinklab::sweep
