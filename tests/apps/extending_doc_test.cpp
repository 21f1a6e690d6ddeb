// docs/extending.md tells how to add each kind of thing by worked examples, each with the exact file
// list of its commit: every file the page names must exist, so a rename or a move that the page does
// not follow fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace sinklab {
namespace {

namespace fs = std::filesystem;

std::string extending_doc() {
  std::ifstream in(fs::path(SINKLAB_SOURCE_DIR) / "docs/extending.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `a/b.ext` in the text, and the paths of `git show --stat` lines (" a/b.ext | 12 ++--").
std::set<std::string> named_files(const std::string& doc) {
  std::set<std::string> files;
  const std::regex backticked(R"(`([A-Za-z0-9_.]+(?:/[A-Za-z0-9_.]+)+\.[a-z]+)`)");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), backticked); it != std::sregex_iterator(); ++it)
    files.insert((*it)[1]);
  const std::regex stat_line(R"(\n +([A-Za-z0-9_./]+) +\| +[0-9]+ )");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), stat_line); it != std::sregex_iterator(); ++it)
    files.insert((*it)[1]);
  return files;
}

TEST(ExtendingDoc, EveryFileItNamesExists) {
  const std::string doc = extending_doc();
  ASSERT_FALSE(doc.empty()) << "docs/extending.md is missing";
  const std::set<std::string> files = named_files(doc);
  EXPECT_GE(files.size(), 20u) << "the page names fewer files than its worked examples touch: did the format change?";
  for (const std::string& f : files) {
    if (f.rfind("build/", 0) == 0) continue;  // written by a build (e.g. build/config_reference.md), not in a clone
    EXPECT_TRUE(fs::exists(fs::path(SINKLAB_SOURCE_DIR) / f))
        << "docs/extending.md names " << f << ", which does not exist";
  }
}

TEST(ExtendingDoc, HasAWorkedExampleOfEachKind) {
  const std::string doc = extending_doc();
  for (const char* kind : {"## A normalizer", "## A task", "## A per-head statistic", "## A run-level number",
                           "## A probe", "## A report column"})
    EXPECT_NE(doc.find(kind), std::string::npos) << "no section '" << kind << "'";
  // Each example gives its commit's file list as `git show --stat` prints it.
  size_t stats = 0;
  for (size_t at = doc.find("git show --stat"); at != std::string::npos; at = doc.find("git show --stat", at + 1))
    ++stats;
  EXPECT_GE(stats, 6u);
}

}  // namespace
}  // namespace sinklab
