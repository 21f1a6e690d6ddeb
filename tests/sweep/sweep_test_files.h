#pragma once
// Helpers for the sweep tests: a scratch folder per test and a fake `sinklab train` shell script.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_files/checkpoint_file.h"
#include "run_files/run_summary.h"

namespace sinklab::sweep::testing {

// A fresh folder under the build tree, removed when the test ends.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::path(SINKLAB_BINARY_DIR) / "test_sweep_scratch" /
            (std::string(info->test_suite_name()) + "." + info->name() + "." + std::to_string(getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// An intact checkpoint.bin of a one-parameter model (run_files/checkpoint_file.h): the runner checks a
// run's checkpoint before resuming it and moves a damaged one aside.
inline void write_intact_checkpoint(const std::filesystem::path& path) {
  std::filesystem::create_directories(path.parent_path());
  ParameterStore params;
  params.declare("w", Shape{2});
  params.finalize();
  write_checkpoint_file(path, {}, params, "state");
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A summary.json its one reader (run_files/run_summary.h) accepts: one head of one layer, `steps` steps,
// or a diverged run's (stop_reason non_finite, no statistics).
inline std::string fake_summary_json(int64_t steps, bool diverged) {
  RunSummary summary;
  summary.name = "fake";
  summary.steps = steps;
  summary.normalizer = "softmax";
  summary.layers = 1;
  summary.heads_per_layer = 1;
  summary.seq_len = 16;
  if (diverged) {
    summary.stop_reason = RunSummary::kStopNonFinite;
    summary.non_finite = "loss is nan at step 11";
  } else {
    summary.stop_reason = "max_steps";
    summary.heads.resize(1);
  }
  return nlohmann::json(summary).dump();
}

struct FakeTrainOptions {
  std::string fail_when_out_contains;  // a run whose --out contains this fails...
  int fail_exit_code = 3;              // ...with this exit code (0: exits cleanly without a summary)
  bool fail_by_signal = false;         // ...or kills itself with SIGKILL
  double sleep_seconds = 0.0;          // how long each run "trains"
  std::filesystem::path probe_dir;     // if set: each run records how many runs were alive at once
  // If set: copied as summary.json (instead of fake_summary_json(42)). Either way its "seed":0 is made the
  // run's --set seed.
  std::filesystem::path summary_file;
  std::string interrupt_when_out_contains;  // this run sends SIGTERM to the runner as it starts
  std::string diverge_when_out_contains;    // this run writes a diverged summary.json and exits 3
  long long logged_step = -1;               // if >= 0: a metrics.jsonl line with this step, before sleeping
};

// Writes an executable sh script that behaves like `sinklab train` towards the runner: it parses
// --out, logs its arguments and environment, and writes summary.json via a rename, or fails.
inline std::filesystem::path write_fake_train(const std::filesystem::path& path, const FakeTrainOptions& o) {
  std::ostringstream s;
  s << "#!/bin/sh\n"
       "out=''\n"
       "all=\"$*\"\n"
       "while [ $# -gt 0 ]; do\n"
       "  if [ \"$1\" = --out ]; then out=\"$2\"; shift; fi\n"
       "  shift\n"
       "done\n"
       "echo \"$all\" > \"$out/args.txt\"\n"
       "echo \"${OMP_NUM_THREADS:-unset}\" > \"$out/omp.txt\"\n"
       "echo \"fake train starting in $out\"\n"
       // As a real run's summary says its seed (compare and the report check it against the planned one).
       "seed=$(echo \"$all\" | sed -n 's/.*--set seed=\\([0-9]*\\).*/\\1/p')\n";
  if (!o.probe_dir.empty()) {
    s << "mkdir -p '" << o.probe_dir.string() << "'\n"
      << "mkdir '" << o.probe_dir.string() << "'/$$\n"
      << "ls '" << o.probe_dir.string() << "' | wc -l | tr -d ' ' > \"$out/alive.txt\"\n";
  }
  if (!o.interrupt_when_out_contains.empty())
    s << "case \"$out\" in *'" << o.interrupt_when_out_contains << "'*) kill -TERM $PPID;; esac\n";
  if (o.logged_step >= 0)
    s << "printf '{\"step\": " << o.logged_step << ", \"loss\": 1.0}\\n' >> \"$out/metrics.jsonl\"\n";
  // Sleep in a child that dies with the script, so a terminated run leaves no stray process behind.
  if (o.sleep_seconds > 0)
    s << "sleep " << o.sleep_seconds << " & child=$!\n"
      << "trap 'kill $child 2>/dev/null; exit 143' TERM\n"
      << "wait $child\n";
  if (!o.probe_dir.empty()) s << "rmdir '" << o.probe_dir.string() << "'/$$\n";
  if (!o.fail_when_out_contains.empty()) {
    s << "case \"$out\" in *'" << o.fail_when_out_contains << "'*)\n"
      << "  echo 'step 10 loss 0.5'\n"
      << "  echo 'error: loss became NaN at step 11' >&2\n";
    if (o.fail_by_signal) {
      s << "  kill -9 $$;;\n";
    } else {
      s << "  exit " << o.fail_exit_code << ";;\n";
    }
    s << "esac\n";
  }
  if (!o.diverge_when_out_contains.empty())
    s << "case \"$out\" in *'" << o.diverge_when_out_contains << "'*)\n"
      << "  echo 'loss is nan at step 11' >&2\n"
      << "  echo '" << fake_summary_json(11, true) << "' | sed \"s/\\\"seed\\\":0/\\\"seed\\\":${seed:-0}/\" > "
      << "\"$out/summary.json.tmp\"\n"
      << "  mv \"$out/summary.json.tmp\" \"$out/summary.json\"\n"
      << "  exit 3;;\n"
      << "esac\n";
  s << "echo 'step 42 loss 1e-8'\n";
  if (o.summary_file.empty()) {
    s << "echo '" << fake_summary_json(42, false) << "' | sed \"s/\\\"seed\\\":0/\\\"seed\\\":${seed:-0}/\" > "
      << "\"$out/summary.json.tmp\"\n";
  } else {
    s << "sed \"s/\\\"seed\\\":0/\\\"seed\\\":${seed:-0}/\" '" << o.summary_file.string()
      << "' > \"$out/summary.json.tmp\"\n";
  }
  s << "mv \"$out/summary.json.tmp\" \"$out/summary.json\"\n";
  write_file(path, s.str());
  chmod(path.c_str(), 0755);
  return path;
}

}  // namespace sinklab::sweep::testing
