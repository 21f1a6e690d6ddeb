// Every figure `sinklab probe` writes names what both its axes show (the distance figures had no y label).
#include "probes/figure_script.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/apps/cli_process.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

TEST(ProbeFigures, EveryScriptLabelsBothAxes) {
  const fs::path out = fs::temp_directory_path() / ("sinklab_probe_labels_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const testing::CliResult r =
      testing::run_sinklab("probe --synthetic --out " + out.string() + " --L 32,64 --windows 2 --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int scripts = 0;
  for (const auto& f : fs::directory_iterator(out / "figures")) {
    if (f.path().extension() != ".gp") continue;
    ++scripts;
    std::ifstream in(f.path());
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("set xlabel '"), std::string::npos) << f.path() << "\n" << text.str();
    EXPECT_NE(text.str().find("set ylabel '"), std::string::npos) << f.path() << "\n" << text.str();
  }
  EXPECT_GE(scripts, 6) << "vanishing, distance_vs_L, distance_vs_N, critical_n, separability, gradient";
  fs::remove_all(out);
}

}  // namespace
}  // namespace sinklab
