#pragma once
// One child process started with fork + exec, its stdout and stderr sent to a log file; it gets SIGTERM
// when the process that started it dies, even by SIGKILL (PR_SET_PDEATHSIG). Waiting is
// by pid only (never waitpid(-1)), so the sweep never reaps children that are not its own.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sinklab::sweep {

struct ExitStatus {
  bool signaled = false;  // killed by a signal rather than exiting
  int code = 0;           // exit code, or the signal number when signaled
  bool ok() const { return !signaled && code == 0; }
  std::string describe() const;  // "exit 1", "signal 9 (Killed)"
};

struct ChildSpec {
  std::filesystem::path executable;
  std::vector<std::string> args;  // argv[1..]; argv[0] is the executable path
  std::filesystem::path log_file;  // created or truncated; receives stdout and stderr
  std::vector<std::pair<std::string, std::string>> env;  // set on top of this process's environment
  bool append_log = false;  // append to log_file instead of truncating it (a resumed run)
};

class ChildProcess {
 public:
  // Throws SweepError naming the executable and the reason when the child cannot start.
  static ChildProcess spawn(const ChildSpec& spec);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // A child still running when its handle dies is terminated and reaped: no orphans, no zombies.
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  // Non-blocking: the exit status once the child has ended (reaped on that call), else nothing.
  std::optional<ExitStatus> poll();
  // Blocks until the child ends.
  ExitStatus wait();
  // SIGTERM, then reap.
  void terminate();

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;  // -1 once reaped or moved from
};

}  // namespace sinklab::sweep
