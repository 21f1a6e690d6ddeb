// `sinklab probe` end to end: ci_tiny (configs/normlimits/ci_tiny.yaml, the committed KJV excerpt) is
// trained, then probed; every file exists with the spec's columns and rows, the invariant counters are
// 0, the run folder is left as it was; bad flags and paths are one clear message with exit status 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/apps/ci_tiny_run.h"
#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

const std::string kSource = SINKLAB_SOURCE_DIR;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("sinklab_probe_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every file under `dir` with its size and modification time.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      files.push_back(e.path().string() + ":" + std::to_string(e.file_size()) + ":" +
                      std::to_string(e.last_write_time().time_since_epoch().count()));
  std::sort(files.begin(), files.end());
  return files;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class ProbeCommand : public testing::CiTinyRun {};

TEST_F(ProbeCommand, WritesEveryFileWithItsColumnsAndNoViolations) {
  const fs::path out = fresh_dir("out");
  const std::vector<std::string> before = listing(*run_);
  const testing::CliResult r =
      testing::run_sinklab("probe " + run_->string() + " --out " + out.string() + " --windows 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "probe: L = 64 (2/2), window 2/2")) << "progress on the terminal:\n" << r.output;
  EXPECT_EQ(listing(*run_), before) << "the run folder is read only";

  const std::string distance_header = "layer,head,L,N,d_true,d_r2,d_max,E_main,E_up,E_mc";
  const std::vector<std::string> by_l = lines_of(out / "distance_vs_L.csv");
  ASSERT_EQ(by_l.size(), 1u + 2 * 4) << "default L grid 32, 64 (ci_tiny's length) x 4 heads";
  EXPECT_EQ(by_l[0], distance_header);
  const std::vector<std::string> by_n = lines_of(out / "distance_vs_N.csv");
  EXPECT_EQ(by_n[0], distance_header);
  EXPECT_EQ(by_n.size(), 1u + 9 * 4) << "the default --N below L = 64: 1, 2, 4, 5, 8, 10, 16, 20, 32";
  for (std::size_t i = 1; i < by_n.size(); ++i) {
    std::stringstream line(by_n[i]);
    std::vector<std::string> cells;
    for (std::string c; std::getline(line, c, ',');) cells.push_back(c);
    ASSERT_EQ(cells.size(), 10u) << by_n[i];
    for (const std::string& c : cells) EXPECT_FALSE(c.empty()) << "every column is filled: " << by_n[i];
    EXPECT_LE(std::stod(cells[4]), std::stod(cells[6])) << "d_true <= d_max per head: " << by_n[i];
    EXPECT_LE(std::stod(cells[7]), std::stod(cells[8])) << "E_main <= E_up: " << by_n[i];
  }
  EXPECT_EQ(
      lines_of(out / "vanishing.csv")[0],
      "layer,head,n_from,n_to,rows,median_n_max_a,median_n_min_a,median_lower_bound,median_upper_bound,violations,"
      "bound_applies");
  EXPECT_EQ(lines_of(out / "vanishing.csv").size(), 1u + 4 * 7) << "bins 1, 2, 4, ..., 64";
  EXPECT_EQ(lines_of(out / "critical_n.csv")[0], "L,N,ks_D,p_value,exact,heads,distance,expectation");
  EXPECT_EQ(lines_of(out / "critical_n_summary.csv")[0], "L,N_crit,N_crit_over_L,alpha");
  EXPECT_EQ(lines_of(out / "critical_n_summary.csv").size(), 3u);
  EXPECT_EQ(lines_of(out / "separability.csv")[0], "layer,head,L,N,separability,rows");
  EXPECT_EQ(lines_of(out / "separability.csv")[1], "0,0,64,1,1,126") << "N = 1: 1 on rows 1 .. 62 of 2 windows";
  const std::vector<std::string> gradient = lines_of(out / "gradient.csv");
  EXPECT_EQ(gradient[0], "T,eps,g_max,g_median,bound_1_over_2T,reference_min_1_over_4T_sqrt2,sigma_l");
  EXPECT_EQ(gradient.size(), 1u + 26 * 3);
  for (const char* f : {"vanishing", "distance_vs_L", "distance_vs_N", "critical_n", "separability", "gradient"})
    EXPECT_TRUE(fs::exists(out / "figures" / (std::string(f) + ".gp"))) << f;
  const std::string md = text_of(out / "probes.md");
  for (const char* claim : {"| P1 vanishing |", "| P2 distance vs L |", "| P2 distance vs N |", "| P3 critical N |",
                            "| P4 separability |", "| P5 gradient |", "| P6 coverage |"})
    EXPECT_TRUE(contains(md, claim)) << claim << "\n" << md;
  EXPECT_TRUE(contains(md, "vectors `value`")) << md;
  EXPECT_TRUE(contains(md, "normalizer `softmax`")) << md;
  // The invariant table: every counter checked something and found nothing.
  for (const char* row : {"| d_true <= d_max", "| P1 e^", "| separability 1 at N = 1", "| P5 g <="}) {
    const std::size_t at = md.find(row);
    ASSERT_NE(at, std::string::npos) << row;
    const std::string line = md.substr(at, md.find('\n', at) - at);
    EXPECT_TRUE(line.ends_with("| 0 |")) << line;
    EXPECT_FALSE(contains(line, "| 0 | 0 |")) << "nothing checked: " << line;
  }
  fs::remove_all(out);
}

TEST_F(ProbeCommand, HiddenVectorsAndMonteCarloExpectationRun) {
  const fs::path out = fresh_dir("hidden");
  const testing::CliResult r =
      testing::run_sinklab("probe " + run_->string() + " --out " + out.string() +
                           " --windows 1 --L 16,64 --vectors hidden --expectation mc --T 0.01,1 --eps 0.1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(lines_of(out / "distance_vs_L.csv").size(), 1u + 2 * 4);
  EXPECT_EQ(lines_of(out / "gradient.csv").size(), 1u + 2);
  EXPECT_TRUE(contains(lines_of(out / "critical_n.csv")[1], ",d_true,E_mc")) << lines_of(out / "critical_n.csv")[1];
  fs::remove_all(out);
}

TEST_F(ProbeCommand, BadRequestsAreOneClearMessage) {
  const fs::path out = fresh_dir("bad");
  const auto probe = [&](const std::string& args) {
    return testing::run_sinklab("probe " + args + " --out " + out.string());
  };
  const testing::CliResult too_long = probe(run_->string() + " --L 32,128");
  EXPECT_EQ(too_long.exit_code, 2);
  EXPECT_TRUE(contains(too_long.output, "--L: 128 is longer than the model's windows (64 positions)"))
      << too_long.output;
  const testing::CliResult kind = probe(run_->string() + " --vectors keys");
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_TRUE(contains(kind.output, "--vectors: expected value or hidden, got 'keys'")) << kind.output;
  const testing::CliResult list = probe(run_->string() + " --N 5,2");
  EXPECT_EQ(list.exit_code, 2);
  EXPECT_TRUE(contains(list.output, "--N: expected")) << list.output;
  const testing::CliResult grid = probe(run_->string() + " --T 1e-3:1e2");
  EXPECT_EQ(grid.exit_code, 2);
  EXPECT_TRUE(contains(grid.output, "--T: expected")) << grid.output;
  const testing::CliResult missing = probe("/nonexistent/run");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.output, "/nonexistent/run: no such run folder")) << missing.output;
  const testing::CliResult neither = probe("");
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_TRUE(contains(neither.output, "give a RUN_DIR, --gpt2 MODEL.safetensors, or --synthetic")) << neither.output;
  const testing::CliResult both = probe(run_->string() + " --synthetic");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.output, "give only one of RUN_DIR, --gpt2 and --synthetic")) << both.output;
  const testing::CliResult no_tokens = probe("--gpt2 " + kSource + "/tests/fixtures/gpt2/model.safetensors");
  EXPECT_EQ(no_tokens.exit_code, 2);
  EXPECT_TRUE(contains(no_tokens.output, "--gpt2 needs --tokens IDS.npy")) << no_tokens.output;
  EXPECT_FALSE(fs::exists(out)) << "nothing written for a refused request";
}

// A GPT-2 from a Hugging Face safetensors file (the committed tiny random one, tests/fixtures/gpt2:
// 2 layers x 4 heads, 16 positions) with the user's token windows [2, 16].
TEST(ProbeGpt2, RunsOnSafetensorsWeightsAndTokenIds) {
  const fs::path out = fresh_dir("gpt2");
  const std::string fixture = kSource + "/tests/fixtures/gpt2/";
  const testing::CliResult r =
      testing::run_sinklab("probe --gpt2 " + fixture + "model.safetensors --tokens " + fixture +
                           "ids.npy --windows 2 --L 8,16 --N 1,2,4 --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(text_of(out / "probes.md"), "GPT-2 2 x 4 (model.safetensors)")) << text_of(out / "probes.md");
  EXPECT_EQ(lines_of(out / "distance_vs_L.csv").size(), 1u + 2 * 2 * 4) << "2 layers x 4 heads x 2 lengths";
  EXPECT_EQ(lines_of(out / "separability.csv")[1], "0,0,16,1,1,30") << "N = 1: 1 on rows 1 .. 15 of 2 windows";
  fs::remove_all(out);

  const testing::CliResult too_many = testing::run_sinklab("probe --gpt2 " + fixture + "model.safetensors --tokens " +
                                                           fixture + "ids.npy --out " + out.string());
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_TRUE(contains(too_many.output, "--windows: 4 windows asked, but")) << too_many.output;
  const testing::CliResult too_long =
      testing::run_sinklab("probe --gpt2 " + fixture + "model.safetensors --tokens " + fixture +
                           "ids.npy --windows 2 --L 32 --out " + out.string());
  EXPECT_EQ(too_long.exit_code, 2);
  EXPECT_TRUE(contains(too_long.output, "--L: 32 is longer than")) << too_long.output;
  EXPECT_FALSE(fs::exists(out)) << "nothing written for a refused request";
}

TEST(ProbeSynthetic, RunsWithoutAModel) {
  const fs::path out = fresh_dir("synthetic");
  const testing::CliResult r =
      testing::run_sinklab("probe --synthetic --out " + out.string() + " --L 32,64 --windows 2 --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(text_of(out / "probes.md"), "# Normalization-limit probes: synthetic"));
  EXPECT_EQ(lines_of(out / "distance_vs_L.csv").size(), 1u + 2 * 2 * 4) << "2 layers x 4 heads x 2 lengths";
  fs::remove_all(out);
}

}  // namespace
}  // namespace sinklab
