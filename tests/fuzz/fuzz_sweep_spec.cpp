// Sweep file (`sinklab compare SWEEP`): arbitrary bytes as the YAML of a sweep file at
// <tmp>/sweeps/sweep.yaml, then the same steps compare takes before running anything: expand the
// grid and validate every run's overrides against its config. The repository's paper configs are
// copied to <tmp>/paper and <tmp>/sweeps so that `base`/`config` paths of the shipped sweeps resolve.
// The only acceptable failure is a SweepError naming the sweep file.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "sweep/sweep_error.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"
#include "sweep/sweep_validation.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const char* sub : {"paper", "sweeps"}) {
    const fs::path dir = sinklab::fuzz::temp_dir() / sub;
    fs::create_directories(dir);
    for (const auto& entry : fs::directory_iterator(sinklab::fuzz::source_dir() / "configs/paper"))
      fs::copy_file(entry.path(), dir / entry.path().filename(), fs::copy_options::overwrite_existing);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const sinklab::ConfigVocabulary vocab{sinklab::fuzz::kNormalizers, sinklab::fuzz::kTasks};
  static const fs::path source = sinklab::fuzz::temp_dir() / "sweeps" / "sweep.yaml";
  const std::string text(reinterpret_cast<const char*>(data), size);
  sinklab::fuzz::expect_only<sinklab::sweep::SweepError>([&] {
    const sinklab::sweep::SweepSpec spec = sinklab::sweep::parse_sweep_spec(text, source);
    std::vector<sinklab::sweep::PlannedRun> runs = sinklab::sweep::expand_sweep(spec);
    // Validation loads one config per run; a few hundred keep an input well under a second.
    if (runs.size() <= 256) sinklab::sweep::validate_sweep(spec, runs, vocab);
  });
  return 0;
}
