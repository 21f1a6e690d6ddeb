// report/gnuplot_runner.h: two renders of one script at once (two reports, probes or error-vs-sink runs
// on one folder) write their pictures and logs under temporary names of their own, so neither writes
// into, renames or removes the other's: whenever a render returns, the picture under the final name is
// a complete one.
#include "report/gnuplot_runner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using testing::fresh_test_dir;
using testing::read_text;
using testing::write_text;

// A gnuplot that draws <script folder>/fig.png and fig.svg slowly, in two writes each, under the names
// GnuplotRunner gives it (-e "partial='SUFFIX'").
fs::path slow_fake_gnuplot(const fs::path& dir) {
  const fs::path path = dir / "slow_gnuplot";
  write_text(path,
             "#!/bin/sh\n"
             "suffix=${2#partial=\\'}; suffix=${suffix%\\'}\n"
             "for ext in png svg; do\n"
             "  out=\"$(dirname \"$3\")/fig.$ext$suffix\"\n"
             "  printf 'begin-' > \"$out\"; sleep 0.02; printf 'end' >> \"$out\"\n"
             "done\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(GnuplotRunner, TwoRendersOfOneScriptAtOnceEachLeaveCompletePictures) {
  const fs::path dir = fresh_test_dir();
  const fs::path gnuplot = slow_fake_gnuplot(dir), script = dir / "figures" / "fig.gp";
  write_text(script, "# drawn by the fake\n");
  constexpr int kRenders = 8;
  std::vector<std::string> problems(2);
  std::vector<std::thread> renderers;
  for (int t = 0; t < 2; ++t)
    renderers.emplace_back([&, t] {
      std::ostringstream log;
      GnuplotRunner runner(gnuplot.string(), log);
      for (int i = 0; i < kRenders && problems[static_cast<size_t>(t)].empty(); ++i) {
        if (!runner.render(script)) problems[static_cast<size_t>(t)] = "render failed: " + log.str();
        for (const char* picture : {"fig.png", "fig.svg"})
          if (const std::string text = read_text(script.parent_path() / picture); text != "begin-end")
            problems[static_cast<size_t>(t)] = std::string(picture) + " holds \"" + text + "\" after a render";
      }
    });
  for (std::thread& t : renderers) t.join();
  EXPECT_EQ(problems[0], "");
  EXPECT_EQ(problems[1], "");
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(script.parent_path())) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"fig.gp", "fig.png", "fig.svg"})) << "temporaries or logs left";
}

}  // namespace
}  // namespace sinklab
