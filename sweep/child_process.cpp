#include "sweep/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "sweep/sweep_error.h"

extern char** environ;

namespace sinklab::sweep {
namespace {

ExitStatus decode(int status) {
  if (WIFSIGNALED(status)) return ExitStatus{true, WTERMSIG(status)};
  return ExitStatus{false, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

// The parent's environment with `overrides` replacing or adding variables, as "NAME=value" strings.
std::vector<std::string> merged_environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    const std::string name = entry.substr(0, eq);
    if (vars.emplace(name, eq == std::string::npos ? "" : entry.substr(eq + 1)).second) order.push_back(name);
  }
  for (const auto& [name, value] : overrides) {
    if (!vars.count(name)) order.push_back(name);
    vars[name] = value;
  }
  std::vector<std::string> out;
  for (const auto& name : order) out.push_back(name + "=" + vars[name]);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Runs in the forked child, so only async-signal-safe calls. Never returns: execs or _exits.
[[noreturn]] void exec_child(pid_t parent, char* const* argv, char* const* envp, const char* log, int log_flags,
                             int error_pipe) {
  auto fail = [error_pipe](int error) {
    [[maybe_unused]] const ssize_t n = write(error_pipe, &error, sizeof error);
    _exit(127);
  };
  // A `compare` killed with SIGKILL cannot stop its children itself: the kernel sends them SIGTERM
  // instead, so no orphan keeps writing into a run folder that the next `compare` reuses.
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) fail(errno);
  // The parent may have died between fork and prctl: then the signal is never sent, so stop here.
  if (getppid() != parent) _exit(127);
  // The sweep's own stop handlers (StopSignals) must not apply to the child before exec resets them.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int out = open(log, log_flags, 0644);
  if (out < 0) fail(errno);
  if (dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0) fail(errno);
  if (out != STDOUT_FILENO && out != STDERR_FILENO) close(out);
  const int in = open("/dev/null", O_RDONLY);
  if (in < 0 || dup2(in, STDIN_FILENO) < 0) fail(errno);
  if (in != STDIN_FILENO) close(in);
  execve(argv[0], argv, envp);
  fail(errno);
  _exit(127);  // not reached: fail() exits
}

}  // namespace

std::string ExitStatus::describe() const {
  if (!signaled) return "exit " + std::to_string(code);
  const char* name = strsignal(code);
  return "signal " + std::to_string(code) + (name ? " (" + std::string(name) + ")" : "");
}

// fork + exec rather than posix_spawn: the child must set PR_SET_PDEATHSIG before it runs the program.
ChildProcess ChildProcess::spawn(const ChildSpec& spec) {
  std::vector<std::string> argv_strings{spec.executable.string()};
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env_strings = merged_environment(spec.env);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);
  const std::string log = spec.log_file.string();
  const int log_flags = O_WRONLY | O_CREAT | (spec.append_log ? O_APPEND : O_TRUNC);
  auto cannot_start = [&](int error) {
    return SweepError("cannot start '" + spec.executable.string() + "' (log " + log + "): " + std::strerror(error));
  };

  // The child reports a failed exec through this pipe; a successful exec closes it (O_CLOEXEC).
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) throw cannot_start(errno);
  // Signals stay blocked across fork so that none is handled by the parent's handlers in the child.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    close(error_pipe[0]);
    exec_child(parent, argv.data(), envp.data(), log.c_str(), log_flags, error_pipe[1]);
  }
  const int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  close(error_pipe[1]);
  if (pid < 0) {
    close(error_pipe[0]);
    throw cannot_start(fork_error);
  }
  int child_error = 0;
  ssize_t n;
  do {
    n = read(error_pipe[0], &child_error, sizeof child_error);
  } while (n < 0 && errno == EINTR);
  close(error_pipe[0]);
  ChildProcess child(pid);
  if (n == static_cast<ssize_t>(sizeof child_error)) {
    child.wait();  // it has _exited already: reap it
    throw cannot_start(child_error);
  }
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept : pid_(other.pid_) { other.pid_ = -1; }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0) terminate();
    pid_ = other.pid_;
    other.pid_ = -1;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) terminate();
}

std::optional<ExitStatus> ChildProcess::poll() {
  if (pid_ <= 0) return std::nullopt;
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == 0) return std::nullopt;
  pid_ = -1;
  if (r < 0) return ExitStatus{false, -1};  // not our child any more (someone else reaped it)
  return decode(status);
}

ExitStatus ChildProcess::wait() {
  if (pid_ <= 0) return ExitStatus{false, -1};
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  pid_ = -1;
  if (r < 0) return ExitStatus{false, -1};
  return decode(status);
}

void ChildProcess::terminate() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  wait();
}

}  // namespace sinklab::sweep
