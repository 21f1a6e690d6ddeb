#include "report/gnuplot_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "core/io/file_read.h"
#include "core/io/file_write.h"

extern char** environ;

namespace sinklab {
namespace {

bool is_executable_file(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// gnuplot's log of a failed render: its first line that mentions an error, else its first line. Only
// the log's start is read (through core/io/file_read.h: something else planted there is not read).
std::string first_error_line(const std::filesystem::path& log) {
  constexpr uint64_t kReadBytes = 1 << 20;
  std::string text;
  try {
    const ReadableFile file(log, "gnuplot log", ReadableFile::kNoSizeLimit);
    text = file.read(0, std::min(file.size(), kReadBytes));
  } catch (const FileReadError& e) {
    return e.what();
  }
  std::istringstream in(text);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos || line.find("rror:") != std::string::npos) return line;
  }
  return first;
}

}  // namespace

std::optional<std::filesystem::path> find_executable(const std::string& command) {
  if (command.empty()) return std::nullopt;
  if (command.find('/') != std::string::npos) {
    if (is_executable_file(command)) return std::filesystem::path(command);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string dirs = path;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(start, end - start);
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / command;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

GnuplotRunner::GnuplotRunner(std::string command, std::ostream& log)
    : command_(std::move(command)), executable_(find_executable(command_)), log_(log) {}

bool GnuplotRunner::render(const std::filesystem::path& script) {
  if (!executable_) {
    if (!warned_missing_) {
      log_ << "gnuplot not found: render with `gnuplot " << (script.parent_path() / "*.gp").string() << "`\n";
      warned_missing_ = true;
    }
    ++failed_;
    return false;
  }
  std::filesystem::path log_path = script;
  log_path.replace_extension(".log");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The log is gnuplot's own: whatever was left at its name goes first (a FIFO there would block the
  // child's open, and the parent waiting for it, forever).
  std::error_code removed;
  std::filesystem::remove(log_path, removed);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::string exe = executable_->string(), arg = script.string(), e = "-e", partial = "partial='.partial'";
  std::vector<char*> argv = {exe.data(), e.data(), partial.data(), arg.data(), nullptr};
  // What the script writes under a temporary name (gnuplot_script.h), moved to its final name once done.
  std::vector<std::filesystem::path> outputs;
  for (const char* ext : {".png", ".svg"}) outputs.push_back(script.parent_path() / (script.stem().string() + ext));
  const auto partial_of = [](const std::filesystem::path& p) { return std::filesystem::path(p.string() + ".partial"); };
  // The pictures' temporary names are gnuplot's own too: a FIFO left there would block the render.
  for (const auto& out : outputs) std::filesystem::remove(partial_of(out), removed);
  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    log_ << "gnuplot could not be started (" << exe << "): " << std::strerror(spawn_error) << "\n";
    ++failed_;
    return false;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::error_code ec;
    for (const auto& out : outputs) {
      if (!std::filesystem::exists(partial_of(out), ec)) continue;
      try {  // a device or FIFO planted at a picture's name is never renamed over
        refuse_to_replace(out);
      } catch (const FileWriteError& e) {
        log_ << "gnuplot: " << e.what() << "; the picture was not written\n";
        std::filesystem::remove(partial_of(out), ec);
        ++failed_;
        return false;
      }
      std::filesystem::rename(partial_of(out), out, ec);
    }
    if (std::filesystem::file_size(log_path, ec) == 0 && !ec)
      std::filesystem::remove(log_path, ec);  // keep only useful logs
    ++rendered_;
    return true;
  }
  for (const auto& out : outputs) {  // half-written pictures of a failed render go
    std::error_code ec;
    std::filesystem::remove(partial_of(out), ec);
  }
  log_ << "gnuplot failed on " << script.string() << " ("
       << (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status)) : std::string("killed by a signal"))
       << "); see " << log_path.string() << ": " << first_error_line(log_path) << "\n";
  ++failed_;
  return false;
}

}  // namespace sinklab
