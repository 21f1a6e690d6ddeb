#pragma once
// Renders gnuplot scripts by running the gnuplot program as a subprocess (no shell involved).
// The command is injectable so tests and users can point at another binary; when it cannot be
// found the scripts stay on disk and one message says how to render them later.
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

namespace sinklab {

// A command containing '/' is taken as a path; otherwise it is searched on $PATH.
std::optional<std::filesystem::path> find_executable(const std::string& command);

class GnuplotRunner {
 public:
  GnuplotRunner(std::string command, std::ostream& log);

  bool available() const { return executable_.has_value(); }

  // Runs `<gnuplot> <script>` with stdout and stderr captured in <script minus .gp>.log. The pictures and
  // the log are written under temporary names of this render's own (core/io/file_write.h) and renamed
  // when gnuplot is done, so renders of one script at once never touch each other's files. Returns
  // true when gnuplot exited with status 0; a failure is reported on the log stream with the log's
  // path. When gnuplot is missing it prints, once per runner,
  //   gnuplot not found: render with `gnuplot <script folder>/*.gp`
  // and returns false.
  bool render(const std::filesystem::path& script);

  int rendered() const { return rendered_; }
  int failed() const { return failed_; }

 private:
  std::string command_;
  std::optional<std::filesystem::path> executable_;
  std::ostream& log_;
  bool warned_missing_ = false;
  int rendered_ = 0, failed_ = 0;
};

}  // namespace sinklab
