// sweep.json readers: arbitrary bytes as <tmp>/sweep/sweep.json, read the way `sinklab report SWEEP`
// reads it (load_sweep_dir: a ReportError naming sweep.json is the only acceptable failure; a run's
// missing summary.json is recorded on that run) and the way `sinklab compare` reads it on resume
// (read_sweep_manifest + changed_runs: an unusable manifest is treated as absent; at most a SweepError).
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "fuzz_support.h"
#include "report/report_runs.h"
#include "sweep/sweep_error.h"
#include "sweep/sweep_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path dir = [] {
    const auto d = sinklab::fuzz::temp_dir() / "sweep";
    std::filesystem::create_directories(d);
    return d;
  }();
  sinklab::fuzz::write_file(dir / "sweep.json", data, size);
  sinklab::fuzz::expect_only<sinklab::ReportError>([&] { sinklab::load_sweep_dir(dir); });
  // Resume compares the old manifest (the input) with the one compare just built (always well-formed).
  static const nlohmann::json current = nlohmann::json::parse(R"({"name": "smoke", "runs": [
      {"id": "softmax_seed=0", "variant": "softmax", "seed": 0, "dir": "runs/softmax_seed=0",
       "overrides": {"train.max_steps": 200, "seed": 0}, "config": "/configs/paper/1x1_softmax.yaml"}]})");
  sinklab::fuzz::expect_only<sinklab::sweep::SweepError>([&] {
    if (const auto previous = sinklab::sweep::read_sweep_manifest(dir))
      sinklab::sweep::changed_runs(*previous, current);
  });
  return 0;
}
