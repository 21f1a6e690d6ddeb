#pragma once
// Running the built `sinklab` binary from tests as a user would: to completion with its output, or in
// the background (to interrupt or kill it) with its output in a file.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace sinklab::testing {

inline std::string sinklab_binary() { return std::string(SINKLAB_BINARY_DIR) + "/sinklab"; }

struct CliResult {
  int exit_code;
  std::string output;  // stdout and stderr together
};

// A shell command line; its output (stdout, and stderr if the command redirects it) and exit status.
inline CliResult run_command(const std::string& cmd) {
  CliResult r{-1, ""};
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// args is split on spaces (tests use paths without spaces).
inline CliResult run_sinklab(const std::string& args) { return run_command(sinklab_binary() + " " + args + " 2>&1"); }

// The same from another working directory (commands that find default files relative to it).
inline CliResult run_sinklab_in(const std::string& working_dir, const std::string& args) {
  return run_command("cd " + working_dir + " && " + sinklab_binary() + " " + args + " 2>&1");
}

// Starts sinklab with these arguments, stdout and stderr appended to log; returns the pid.
inline pid_t start_sinklab(const std::vector<std::string>& args, const std::filesystem::path& log) {
  std::vector<std::string> words{sinklab_binary()};
  words.insert(words.end(), args.begin(), args.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// The same with args split on spaces.
inline pid_t start_sinklab(const std::string& args, const std::filesystem::path& log) {
  std::vector<std::string> words;
  std::istringstream in(args);
  for (std::string w; in >> w;) words.push_back(w);
  return start_sinklab(words, log);
}

// -1 when killed by a signal.
inline int wait_exit_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace sinklab::testing
