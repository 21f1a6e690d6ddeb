#include "sweep/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
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

}  // namespace

std::string ExitStatus::describe() const {
  if (!signaled) return "exit " + std::to_string(code);
  const char* name = strsignal(code);
  return "signal " + std::to_string(code) + (name ? " (" + std::string(name) + ")" : "");
}

ChildProcess ChildProcess::spawn(const ChildSpec& spec) {
  std::vector<std::string> argv_strings{spec.executable.string()};
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env_strings = merged_environment(spec.env);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = spec.log_file.string();
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw SweepError("cannot start '" + spec.executable.string() + "' (log " + log + "): " + std::strerror(rc));
  return ChildProcess(pid);
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
