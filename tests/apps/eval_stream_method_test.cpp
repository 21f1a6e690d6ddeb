// `sinklab eval --stream --method`: a model folder with RoPE streams from a KV cache by default
// (StreamingLLM's method), the recomputation on request; where the two must agree (a window as long as
// the stream: nothing is evicted) they do; an explicit kv-cache on a model with learned positions (OPT)
// is refused by name; --method without --stream is refused; runs keep recomputation.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/apps/cli_process.h"
#include "tests/apps/json_file.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(SINKLAB_SOURCE_DIR) / "tests" / "fixtures" / "open_models";

nlohmann::json stream_eval(const std::string& family, const std::string& flags, const fs::path& out) {
  const std::string folder = (kFixtures / family).string();
  const testing::CliResult r = testing::run_sinklab("eval " + folder + " --stream --tokens " + folder + "/ids.npy " +
                                                    flags + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.exit_code == 0 ? testing::read_json(out) : nlohmann::json();
}

TEST(EvalStreamMethod, ModelFoldersStreamFromAKvCacheByDefault) {
  const fs::path dir = testing::fresh_test_dir();
  const nlohmann::json cached = stream_eval("llama", "--window 8 --keep-first 0,2", dir / "auto.json");
  const nlohmann::json recomputed =
      stream_eval("llama", "--window 8 --keep-first 0,2 --method recompute", dir / "re.json");
  EXPECT_EQ(cached["method"], "kv-cache");
  EXPECT_EQ(recomputed["method"], "recompute");
  ASSERT_EQ(cached["streaming"].size(), 2u);
  // The same dense baseline; the windowed losses differ once tokens leave the cache (two layers).
  EXPECT_EQ(cached["dense"]["loss"], recomputed["dense"]["loss"]);
  for (size_t i = 0; i < 2; ++i) {
    const double a = cached["streaming"][i]["loss"].get<double>(), b = recomputed["streaming"][i]["loss"].get<double>();
    EXPECT_TRUE(std::isfinite(a));
    EXPECT_NE(a, b) << "row " << i;
  }
  // A window longer than the stream evicts nothing: both methods read the same tokens.
  const nlohmann::json long_cached = stream_eval("llama", "--window 32 --keep-first 0", dir / "long.json");
  const nlohmann::json long_recomputed =
      stream_eval("llama", "--window 32 --keep-first 0 --method recompute", dir / "long_re.json");
  EXPECT_NEAR(long_cached["streaming"][0]["loss"].get<double>(), long_recomputed["streaming"][0]["loss"].get<double>(),
              1e-5);
}

TEST(EvalStreamMethod, RefusalsNameTheReason) {
  const std::string opt = (kFixtures / "opt").string();
  testing::CliResult r =
      testing::run_sinklab("eval " + opt + " --stream --tokens " + opt + "/ids.npy --window 8 --method kv-cache");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--method kv-cache: the model's positions are learned"), std::string::npos) << r.output;
  // auto falls back to recomputation on it.
  const fs::path out = testing::fresh_test_dir() / "opt.json";
  EXPECT_EQ(stream_eval("opt", "--window 8 --keep-first 1", out)["method"], "recompute");
  r = testing::run_sinklab("eval " + opt + " --tokens " + opt + "/ids.npy --seq-len 8 --method kv-cache");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--method belongs with --stream"), std::string::npos) << r.output;
  r = testing::run_sinklab("eval " + opt + " --stream --tokens " + opt + "/ids.npy --window 8 --method fast");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("'fast' is none of auto, kv-cache, recompute"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace sinklab
