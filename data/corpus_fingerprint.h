#pragma once
// The content of a run's corpus file (task.corpus), recorded in run.json when the run starts: the
// config hash a checkpoint checks covers the corpus's path, not its text, so a run resumed after the
// file changed would go on training on other text.
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "data/task_config.h"

namespace sinklab {

// {"path", "bytes", "fnv1a64"} of the file task.corpus names, for a task that reads one; nothing
// otherwise. The file is read in pieces. Throws FileReadError (core/io/file_read.h) naming it.
std::optional<nlohmann::json> corpus_fingerprint(const TaskConfig& task);

// Throws std::invalid_argument when RUN_DIR/run.json recorded a corpus fingerprint the file no longer
// has. A run.json without one (an older run, a task without a corpus) passes.
void check_corpus_unchanged(const std::filesystem::path& run_dir, const TaskConfig& task);

}  // namespace sinklab
