// `sinklab export` and `model.init_from` as a user runs them: a trained run exports to its export/
// folder in both formats, a new run starts from that file (its resolved config records the path), and
// every mistake is one clear message with exit status 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("sinklab_export_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

std::string fixture_config() { return std::string(SINKLAB_SOURCE_DIR) + "/tests/fixtures/export/config.yaml"; }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(ExportCommand, ARunExportsInBothFormatsAndANewRunStartsFromTheExport) {
  const fs::path dir = fresh_dir("run");
  const testing::CliResult trained = testing::run_sinklab(
      "train " + fixture_config() + " --set train.max_steps=5 --quiet --out " + (dir / "run").string());
  ASSERT_EQ(trained.exit_code, 0) << trained.output;

  const testing::CliResult st = testing::run_sinklab("export " + (dir / "run").string() + " --format safetensors");
  EXPECT_EQ(st.exit_code, 0) << st.output;
  const fs::path exported = dir / "run/export/model.safetensors";
  EXPECT_NE(st.output.find("wrote " + exported.string() + ": 8 parameters"), std::string::npos) << st.output;
  EXPECT_NE(read(exported).find("\"sinklab_config\""), std::string::npos);

  const testing::CliResult npz = testing::run_sinklab("export " + (dir / "run/checkpoint.bin").string() +
                                                      " --format npz --eval-samples 2");
  EXPECT_EQ(npz.exit_code, 0) << npz.output;
  EXPECT_EQ(read(dir / "run/export/model.npz").rfind("PK\x03\x04", 0), 0u);
  EXPECT_TRUE(fs::exists(dir / "run/export/model.eval.npz")) << npz.output;

  const testing::CliResult next = testing::run_sinklab(
      "train " + fixture_config() + " --set train.max_steps=2 --set model.init_from=" + exported.string() +
      " --quiet --out " + (dir / "next").string());
  EXPECT_EQ(next.exit_code, 0) << next.output;
  EXPECT_NE(read(dir / "next/config.yaml").find("  init_from: " + exported.string() + "\n"), std::string::npos)
      << read(dir / "next/config.yaml");
  fs::remove_all(dir);
}

TEST(ExportCommand, MistakesAreOneClearErrorEach) {
  const fs::path dir = fresh_dir("errors");
  fs::create_directories(dir);
  const auto expect_error = [](const std::string& args, int code, const std::string& message) {
    const testing::CliResult r = testing::run_sinklab(args);
    EXPECT_EQ(r.exit_code, code) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  };
  expect_error("export " + fixture_config() + " --format onnx --out " + (dir / "m.onnx").string(), 2, "--format");
  expect_error("export " + fixture_config() + " --format safetensors", 2, "--out: needed when exporting a config file");
  expect_error("export " + fixture_config() + " --format safetensors --out " + (dir / "m.npz").string(), 2,
               "does not end in .safetensors");
  expect_error("export /nonexistent/sinklab_run --format npz", 2, "/nonexistent/sinklab_run: no such run folder");
  expect_error("train " + fixture_config() + " --set model.init_from=" + (dir / "none.safetensors").string() +
                   " --quiet --out " + (dir / "run").string(),
               2, "model.init_from: safetensors file " + (dir / "none.safetensors").string() + ": cannot open");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
