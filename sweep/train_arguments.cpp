#include "sweep/train_arguments.h"

namespace sinklab::sweep {

namespace fs = std::filesystem;

RunStart choose_run_start(const fs::path& run_dir) {
  std::error_code ec;
  if (fs::is_regular_file(run_dir / "checkpoint.bin", ec)) return RunStart::resume;
  if (!fs::is_directory(run_dir, ec) || fs::is_empty(run_dir, ec)) return RunStart::fresh;
  return RunStart::start_over;
}

std::vector<std::string> train_arguments(const PlannedRun& run, const fs::path& run_dir, int jobs, RunStart start) {
  std::vector<std::string> args = {"train", run.config.string()};
  for (const auto& o : run.overrides) {
    args.push_back("--set");
    args.push_back(o.key + "=" + o.value);
  }
  args.push_back("--out");
  args.push_back(run_dir.string());
  if (start == RunStart::resume) {
    // The same config and overrides as the interrupted attempt: train checks they still agree.
    args.push_back("--resume");
    args.push_back(run_dir.string());
  } else if (start == RunStart::start_over) {
    args.push_back("--force");
  }
  if (jobs > 1) {  // children share the cores: one thread each
    args.push_back("--threads");
    args.push_back("1");
  }
  return args;
}

}  // namespace sinklab::sweep
