#include "data/corpus_fingerprint.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "core/fnv1a.h"
#include "core/io/file_read.h"
#include "core/options/option_spec.h"
#include "data/task_registry.h"

namespace sinklab {

std::optional<nlohmann::json> corpus_fingerprint(const TaskConfig& task) {
  const TaskRegistration* registration = find_task(task.name);
  if (registration == nullptr || !task_declares_option(task.name, "corpus")) return std::nullopt;
  const std::string path = PluginOptions(registration->options, task.options).path("corpus");
  const uint64_t size = regular_file_size(path, "task.corpus");
  constexpr uint64_t kPiece = uint64_t{16} << 20;
  uint64_t hash = kFnv1aBasis;
  for (uint64_t at = 0; at < size; at += kPiece)
    hash = fnv1a(hash, read_file_range(path, at, std::min(kPiece, size - at), "task.corpus"));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return nlohmann::json{{"path", path}, {"bytes", size}, {"fnv1a64", hex}};
}

void check_corpus_unchanged(const std::filesystem::path& run_dir, const TaskConfig& task) {
  const std::filesystem::path file = run_dir / "run.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return;
  const nlohmann::json info =
      nlohmann::json::parse(read_regular_file(file, 1 << 20, "run info"), nullptr, /*allow_exceptions=*/false);
  if (!info.is_object() || !info.contains("corpus")) return;
  std::optional<nlohmann::json> now;
  try {
    now = corpus_fingerprint(task);
  } catch (const FileReadError&) {
    return;  // a missing or unreadable corpus: building the task names it
  }
  const nlohmann::json& then = info["corpus"];
  if (now && then == *now) return;
  const auto text = [](const nlohmann::json& f) {
    return f.is_object() ? f.value("path", std::string("?")) + " (" + f.value("bytes", nlohmann::json()).dump() +
                               " bytes, fnv1a64 " + f.value("fnv1a64", std::string("?")) + ")"
                         : std::string("?");
  };
  throw std::invalid_argument("--resume " + run_dir.string() + ": task.corpus changed since the run started: it was " +
                              text(then) + ", it is " + (now ? text(*now) : std::string("no corpus")) +
                              "; resuming would train on other text. Restore the file, or start over with --force");
}

}  // namespace sinklab
