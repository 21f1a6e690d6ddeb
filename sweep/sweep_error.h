#pragma once
// The one exception type of sweep/: everything a user can get wrong in a sweep file or on the
// compare command line. The message already names the file (and line) or flag involved.
#include <stdexcept>
#include <string>

namespace sinklab::sweep {

class SweepError : public std::runtime_error {
 public:
  explicit SweepError(const std::string& message) : std::runtime_error(message) {}
};

// The sweep was stopped by a signal (Ctrl-C, kill) after its running children were terminated.
class SweepInterrupted : public SweepError {
 public:
  SweepInterrupted(int signal, const std::string& message) : SweepError(message), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

}  // namespace sinklab::sweep
