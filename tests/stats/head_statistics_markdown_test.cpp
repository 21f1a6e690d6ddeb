#include "stats/head_statistics_markdown.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "stats/head_statistics.h"

namespace sinklab {
namespace {

TEST(HeadStatisticsDocs, OneLinePerStatistic) {
  const std::string table = head_statistics_markdown();
  for (const HeadStatistic& s : kHeadStatistics)
    EXPECT_NE(table.find("| `" + std::string(s.name) + "`"), std::string::npos) << s.name;
  EXPECT_EQ(table.find("||"), std::string::npos) << "an empty cell";
}

TEST(HeadStatisticsDocs, DocsEmbedTheCurrentTable) {
  std::ifstream in(std::filesystem::path(SINKLAB_SOURCE_DIR) / "docs/analysis.md");
  ASSERT_TRUE(in) << "docs/analysis.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::string table = head_statistics_markdown();
  if (text.str().find(table) == std::string::npos) {
    const auto fresh = std::filesystem::path(SINKLAB_BINARY_DIR) / "head_statistics.md";
    std::ofstream(fresh) << table;
    ADD_FAILURE() << "docs/analysis.md does not contain the current table of statistics; paste " << fresh.string()
                  << " into it";
  }
}

}  // namespace
}  // namespace sinklab
