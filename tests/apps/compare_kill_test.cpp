// A `sinklab compare` killed with SIGKILL (no chance to stop its children) must not leave its
// `sinklab train` children running: they would keep writing into run folders that the next
// `compare` reuses. Runs the real binary; every wait is bounded.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct ProcStat {
  char state = '?';
  pid_t ppid = 0;
};

// State and parent of a process from /proc/<pid>/stat; nothing once it is gone.
std::optional<ProcStat> proc_stat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  const auto close = text.rfind(')');  // the command name may contain spaces and parentheses
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(text.substr(close + 1));
  ProcStat s;
  rest >> s.state >> s.ppid;
  return s;
}

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (const auto s = proc_stat(pid); s && s->ppid == parent && s->state != 'Z') out.push_back(pid);
  }
  return out;
}

bool alive(pid_t pid) {
  const auto s = proc_stat(pid);
  return s && s->state != 'Z';  // a zombie has stopped running (in a container nobody may reap it)
}

class CompareKill : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sinklab_compare_kill_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    for (pid_t pid : leftovers_) kill(pid, SIGKILL);  // never leave a stray training behind
    fs::remove_all(dir_);
  }
  fs::path dir_;
  std::vector<pid_t> leftovers_;
};

TEST_F(CompareKill, ChildrenDieWithAKilledCompare) {
  // Far too many steps to finish during the test, and no stop rule that could end it early.
  std::ofstream(dir_ / "long.yaml") << "model: {layers: 1, heads: 1}\n"
                                       "train: {batch_size: 8, max_steps: 100000000, stop_max_abs_error: 0, "
                                       "log_every: 1000000, eval_every: 1000000}\n";
  std::ofstream(dir_ / "sweep.yaml") << "name: killed\nbase: long.yaml\n";
  const std::string binary = std::string(SINKLAB_BINARY_DIR) + "/sinklab";
  const std::string sweep = (dir_ / "sweep.yaml").string();
  const std::string out = (dir_ / "out").string();

  const pid_t compare = fork();
  ASSERT_GE(compare, 0);
  if (compare == 0) {
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
    execl(binary.c_str(), binary.c_str(), "compare", sweep.c_str(), "--out", out.c_str(), "--jobs", "1",
          static_cast<char*>(nullptr));
    _exit(127);
  }

  // Wait (bounded) until compare has started its `train` child.
  pid_t train = 0;
  for (const auto deadline = Clock::now() + std::chrono::seconds(60); Clock::now() < deadline && train == 0;) {
    const auto kids = children_of(compare);
    if (!kids.empty()) train = kids.front();
    int status = 0;
    if (waitpid(compare, &status, WNOHANG) == compare) FAIL() << "compare ended before it started a run";
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (train == 0) {
    kill(compare, SIGKILL);
    waitpid(compare, nullptr, 0);
    FAIL() << "compare started no child within 60 s";
  }
  leftovers_.push_back(train);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the child get into training
  ASSERT_TRUE(alive(train));

  ASSERT_EQ(kill(compare, SIGKILL), 0);
  waitpid(compare, nullptr, 0);
  bool gone = false;
  for (const auto deadline = Clock::now() + std::chrono::seconds(5); Clock::now() < deadline && !gone;) {
    gone = !alive(train);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(gone) << "train child " << train << " still runs 5 s after its compare was killed";
}

}  // namespace
