// `sinklab probe --list` prints every registered probe (id, name, doc line), one line each, and
// nothing else; combined with a probe source it is one clear message with exit status 2. The same list
// is a table in docs/normalization-probes.md.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "probes/probe_registry.h"
#include "tests/apps/cli_process.h"
#include "tests/support/docs_embed.h"

namespace sinklab::probes {
namespace {

TEST(ProbeList, PrintsEveryRegistration) {
  const testing::CliResult r = testing::run_sinklab("probe --list");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream lines(r.output);
  std::vector<std::string> printed;
  for (std::string line; std::getline(lines, line);) printed.push_back(line);
  ASSERT_EQ(printed.size(), probe_registry().size()) << r.output;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < printed.size(); ++i) {
    const ProbeRegistration& p = probe_registry()[i];
    EXPECT_EQ(printed[i].rfind(p.id + " ", 0), 0u) << "line " << i << " starts with the id: " << printed[i];
    EXPECT_NE(printed[i].find(" " + p.name + " "), std::string::npos) << printed[i];
    EXPECT_NE(printed[i].find(p.doc), std::string::npos) << printed[i];
    EXPECT_FALSE(p.doc.empty()) << p.id;
    EXPECT_TRUE(ids.insert(p.id).second) << "ids are unique: " << p.id;
  }
}

TEST(ProbeList, RegistrationsHaveTheirOutputHook) {
  for (const ProbeRegistration& p : probe_registry()) EXPECT_NE(p.write, nullptr) << p.id << " writes nothing";
}

TEST(ProbeList, DocsListEveryRegistration) {
  std::string table = "| id | name | what it measures |\n|---|---|---|\n";
  for (const ProbeRegistration& p : probe_registry()) {
    std::string doc;
    for (const char c : p.doc) doc += c == '|' ? std::string("\\|") : std::string(1, c);  // a pipe would end the cell
    table += "| " + p.id + " | " + p.name + " | " + doc + " |\n";
  }
  testing::expect_docs_embed("docs/normalization-probes.md", table, "probe_list.md");
}

TEST(ProbeList, RunsNothingElse) {
  const testing::CliResult r = testing::run_sinklab("probe --list --synthetic");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--list"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace sinklab::probes
