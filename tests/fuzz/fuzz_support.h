#pragma once
// Shared by the libFuzzer harnesses in this folder (one harness per .cpp). A harness calls a reader
// and lets only that reader's documented user-facing exception through; anything else escaping is
// reported here and aborts, so libFuzzer records the input as a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

namespace sinklab::fuzz {

// One temporary directory per fuzzing process, created on first use and reused for every input
// (creating files per input would dominate the run time). Removed at exit.
inline const std::filesystem::path& temp_dir() {
  static const std::filesystem::path dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "sinklab-fuzz-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    std::atexit([] { std::error_code ec; std::filesystem::remove_all(temp_dir(), ec); });
    return std::filesystem::path(pattern);
  }();
  return dir;
}

// Writes the fuzz input to `path` (truncating), for readers that only take a path.
inline void write_file(const std::filesystem::path& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out.flush()) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.string().c_str());
    std::abort();
  }
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz: cannot read %s\n", path.string().c_str());
    std::abort();
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An exception that is not the reader's documented error: the malformed input should have produced
// one clear error instead. Printed with its dynamic type so the finding is readable in the log.
[[noreturn]] inline void unexpected_exception(const std::exception& e) {
  std::fprintf(stderr, "fuzz: FINDING: raw exception %s escaped: %s\n", typeid(e).name(), e.what());
  std::abort();
}

// Runs `read`; `Allowed` (the reader's user-facing error) is fine, any other exception is a finding.
// Returns true when `read` returned normally.
template <typename Allowed, typename Fn>
bool expect_only(Fn&& read) {
  try {
    read();
    return true;
  } catch (const Allowed&) {
    return false;
  } catch (const std::exception& e) {
    unexpected_exception(e);
  } catch (...) {
    std::fprintf(stderr, "fuzz: FINDING: a non-std exception escaped\n");
    std::abort();
  }
}

// The names `sinklab train` gets from the normalizer registry (layers/) and the task list (data/).
// Copied, not linked: those libraries pull in the numeric core. A stale list only changes which
// name errors the fuzzer sees, never whether a crash is found.
inline const std::vector<std::string> kNormalizers = {"relu", "softmax"};
inline const std::vector<std::string> kTasks = {"trigger_conditional"};

// Where the repository's configs live, for harnesses that need a valid config next to the input.
inline std::filesystem::path source_dir() { return SINKLAB_SOURCE_DIR; }

}  // namespace sinklab::fuzz
