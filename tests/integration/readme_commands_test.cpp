// The README's commands, run as a newcomer runs them: in the order they appear, in one fresh folder,
// each to exit 0. Commands that take minutes, need the network or another program are skipped by an
// explicit list, each with its reason; a skip entry that matches no command fails, so the list cannot
// outlive the README. A second test checks that every test selection the docs show (`ctest -R X`,
// `--gtest_filter=X`) selects at least one test: ctest and gtest accept an empty selection silently.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/apps/cli_process.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using testing::fresh_test_dir;
using testing::read_text;
using testing::run_command;

const fs::path kSource(SINKLAB_SOURCE_DIR);
const fs::path kBuild(SINKLAB_BINARY_DIR);

// The commands of the README in order: every line of its ```sh blocks, and the command of each
// feature bullet (its first `...` that starts like a command). Trailing `# comments` are dropped.
std::vector<std::string> readme_commands() {
  std::istringstream in(read_text(kSource / "README.md"));
  std::vector<std::string> commands;
  bool in_sh_block = false;
  const std::regex backticked("`([^`]+)`");
  const std::regex runnable(R"(^(build/|\./|scripts/|timeout |python3 |mpirun ))");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      in_sh_block = !in_sh_block && line == "```sh";
      continue;
    }
    if (in_sh_block) {
      const size_t comment = line.find("  #");
      std::string command = line.substr(0, comment == std::string::npos ? line.size() : comment);
      command.erase(command.find_last_not_of(' ') + 1);
      if (!command.empty()) commands.push_back(command);
    } else if (line.rfind("- **", 0) == 0) {  // a feature bullet: its first runnable `...`
      for (auto it = std::sregex_iterator(line.begin(), line.end(), backticked); it != std::sregex_iterator(); ++it)
        if (std::regex_search((*it)[1].str(), runnable)) {
          commands.push_back((*it)[1]);
          break;
        }
    }
  }
  return commands;
}

struct Skip {
  const char* prefix;
  const char* reason;
};

// Commands this test does not run, by prefix.
const std::vector<Skip>& skipped() {
  static const std::vector<Skip> list = {
      {"./scripts/demo.sh", "the whole paper reproduction (over an hour)"},
      {"./scripts/test.sh", "this test is part of it"},
      {"./scripts/build.sh", "the test runs on the build it belongs to"},
      {"build/sinklab compare configs/sweeps/normalizers_1x1.yaml", "a 15-run sweep (minutes)"},
      {"build/sinklab report runs/normalizers-1x1", "needs the sweep above"},
      {"scripts/get_corpus.sh", "installs Debian packages; the language model trains for minutes"},
      {"build/sinklab compare configs/sweeps/error_vs_sink.yaml", "a sweep of many runs (an hour)"},
      {"build/sinklab probe --gpt2", "needs GPT-2's weights from the network"},
      {"mpirun -np 64 --hostfile", "needs a cluster's hostfile"},  // the train --mpi line runs: 3 ranks, 25 s
      {"timeout -s INT 5 build/sinklab train configs/paper/4x4_softmax.yaml", "the resumed 4x4 run trains for minutes"},
      {"python3 bench/vs_pytorch.py", "needs PyTorch, a timing run"},
      {"python3 bench/vs_llmc.py", "needs an llm.c checkout and builds it, a timing run of minutes"},
      {"./scripts/setup-arm64.sh", "installs the arm64 cross toolchain and cross-builds everything (minutes); CI runs "
                                   "scripts/test-arm64.sh --subset"},
  };
  return list;
}

const Skip* skip_for(const std::string& command) {
  for (const Skip& s : skipped())
    if (command.rfind(s.prefix, 0) == 0) return &s;
  return nullptr;
}

TEST(ReadmeCommands, RunInOrderInAFreshFolder) {
  const std::vector<std::string> commands = readme_commands();
  ASSERT_GE(commands.size(), 10u) << "README.md's command blocks or feature bullets changed shape";
  for (const Skip& s : skipped()) {
    bool used = false;
    for (const std::string& c : commands) used |= c.rfind(s.prefix, 0) == 0;
    EXPECT_TRUE(used) << "skip entry '" << s.prefix << "' matches no README command: remove it";
  }
  // The folder a newcomer has after building: the checkout's configs, scripts, tests (their fixtures) and build/.
  const fs::path dir = fresh_test_dir();
  for (const char* name : {"configs", "scripts", "bench", "tools", "docs", "tests"})
    fs::create_directory_symlink(kSource / name, dir / name);
  fs::create_directory_symlink(kBuild, dir / "build");
  const fs::path log = dir / "commands.log";
  int ran = 0;
  for (const std::string& command : commands) {
    if (skip_for(command)) continue;
    const testing::CliResult r =
        run_command("cd '" + dir.string() + "' && (" + command + ") >> commands.log 2>&1; echo $?");
    ++ran;
    if (r.output == "0\n") continue;
    const std::string output = read_text(log);
    ADD_FAILURE() << "README command failed (exit " << r.output << "): " << command << "\n(its output: " << log << ")\n"
                  << output.substr(output.size() > 3000 ? output.size() - 3000 : 0);
  }
  EXPECT_GE(ran, 8) << "the README's fast commands are fewer than expected: is the skip list too wide?";
}

// A newcomer's machine may have fewer cores than ranks and be a root shell (a container): Open MPI then
// refuses `mpirun -np 3` unless told otherwise, on any machine that is not a cluster node (which the
// hostfile lines are for). Every mpirun line of the README and of docs/cluster.md's train section that
// runs on one machine carries both flags (`--allow-run-as-root` is ignored when not root).
TEST(ReadmeCommands, MpirunLinesRunOnASmallMachineAsRootOrNot) {
  std::vector<std::string> lines;
  for (const std::string& c : readme_commands())
    if (c.rfind("mpirun ", 0) == 0) lines.push_back("README.md: " + c);
  std::istringstream cluster(read_text(kSource / "docs" / "cluster.md"));
  for (std::string line; std::getline(cluster, line);)
    if (line.rfind("mpirun ", 0) == 0 && line.find(" train ") != std::string::npos)
      lines.push_back("docs/cluster.md: " + line);
  int local = 0;
  for (const std::string& line : lines) {
    if (line.find("--hostfile") != std::string::npos) continue;
    ++local;
    EXPECT_NE(line.find(" --oversubscribe "), std::string::npos) << line;
    EXPECT_NE(line.find(" --allow-run-as-root "), std::string::npos) << line;
  }
  EXPECT_GE(local, 3) << "the README's train --mpi line and docs/cluster.md's two were not found";
}

// `ctest -R X` and `--gtest_filter=X` as the docs show them, each expected to select a test.
TEST(ReadmeCommands, EveryTestSelectionTheDocsShowSelectsATest) {
  std::vector<fs::path> pages{kSource / "README.md"};
  for (const auto& e : fs::directory_iterator(kSource / "docs"))
    if (e.path().extension() == ".md") pages.push_back(e.path());
  const std::regex ctest_r(R"(ctest -R ([^ )`]+))");
  const std::regex gtest_filter(R"((build/tests/test_[a-z_]+) --gtest_filter='?([^' `]+))");
  int checked = 0;
  for (const fs::path& page : pages) {
    const std::string text = read_text(page);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), ctest_r); it != std::sregex_iterator(); ++it) {
      const std::string pattern = (*it)[1];
      const testing::CliResult r =
          run_command("cd '" + kBuild.string() + "' && ctest -N -R '" + pattern + "' | tail -1");
      EXPECT_EQ(r.output.find("Total Tests: 0"), std::string::npos)
          << page.filename() << " shows `ctest -R " << pattern << "`, which selects no test";
      ++checked;
    }
    for (auto it = std::sregex_iterator(text.begin(), text.end(), gtest_filter); it != std::sregex_iterator(); ++it) {
      const std::string binary = std::string((*it)[1]).substr(std::string("build/").size());
      const std::string filter = (*it)[2];
      const testing::CliResult r =
          run_command("'" + (kBuild / binary).string() + "' --gtest_list_tests --gtest_filter='" + filter + "'");
      EXPECT_NE(r.output.find("\n  "), std::string::npos)
          << page.filename() << " shows `" << binary << " --gtest_filter=" << filter << "`, which selects no test";
      ++checked;
    }
  }
  EXPECT_GE(checked, 2) << "no test selection found in the docs: did the pattern change?";
}

}  // namespace
}  // namespace sinklab
