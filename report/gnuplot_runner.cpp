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
  // Every file this render writes goes to a temporary name of its own (core/io/file_write.h), renamed
  // once gnuplot is done: another render of the same script at the same time (a second report, probe or
  // error-vs-sink on one folder) never writes into, renames or removes this one's files. The names are
  // random: drawn again in the unlikely case something stands at one of them already.
  std::vector<std::filesystem::path> outputs;  // what the script draws (gnuplot_script.h)
  for (const char* ext : {".png", ".svg"}) outputs.push_back(script.parent_path() / (script.stem().string() + ext));
  std::string suffix;
  const auto temporary = [&](const std::filesystem::path& p) { return std::filesystem::path(p.string() + suffix); };
  const auto taken = [&] {
    std::error_code ec;
    for (const auto& p : {log_path, outputs[0], outputs[1]})
      if (std::filesystem::exists(std::filesystem::symlink_status(temporary(p), ec))) return true;
    return false;
  };
  do suffix = unique_temporary_suffix();
  while (taken());
  const std::filesystem::path log_tmp = temporary(log_path);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_tmp.c_str(),
                                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::string exe = executable_->string(), arg = script.string(), e = "-e", partial = "partial='" + suffix + "'";
  std::vector<char*> argv = {exe.data(), e.data(), partial.data(), arg.data(), nullptr};
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
  std::error_code ec;
  const bool succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  bool placed = succeeded;
  for (const auto& out : outputs) {
    if (!placed || !std::filesystem::exists(temporary(out), ec)) {
      std::filesystem::remove(temporary(out), ec);  // half-written pictures of a failed render go
      continue;
    }
    try {  // a device or FIFO planted at a picture's name is never renamed over
      refuse_to_replace(out);
      std::filesystem::rename(temporary(out), out, ec);
      if (ec) throw FileWriteError(out.string() + ": cannot rename the rendered picture into place: " + ec.message());
    } catch (const FileWriteError& e) {
      log_ << "gnuplot: " << e.what() << "; the picture was not written\n";
      std::filesystem::remove(temporary(out), ec);
      placed = false;
    }
  }
  // Only a useful log (output, or a failure) is kept, under its final name; an empty one goes, and so does an
  // earlier render's log at the final name (a regular file or a link; anything else planted there stays).
  const bool useful_log = !succeeded || (std::filesystem::file_size(log_tmp, ec) > 0 && !ec);
  const std::string at_log = non_regular_file_at(log_path);
  const bool replaceable = at_log.empty() || at_log == "a symbolic link";
  std::filesystem::path log_shown = log_tmp;
  if (!useful_log) {
    std::filesystem::remove(log_tmp, ec);
    if (succeeded && replaceable) std::filesystem::remove(log_path, ec);
  } else if (replaceable && (std::filesystem::rename(log_tmp, log_path, ec), !ec)) {
    log_shown = log_path;
  }
  if (placed) {
    ++rendered_;
    return true;
  }
  if (!succeeded)
    log_ << "gnuplot failed on " << script.string() << " ("
         << (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status)) : std::string("killed by a signal"))
         << "); see " << log_shown.string() << ": " << first_error_line(log_shown) << "\n";
  ++failed_;
  return false;
}

}  // namespace sinklab
