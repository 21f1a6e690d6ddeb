#include "stats/head_statistics_markdown.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "stats/head_statistics.h"
#include "tests/support/docs_embed.h"

namespace sinklab {
namespace {

TEST(HeadStatisticsDocs, OneLinePerStatistic) {
  const std::string table = head_statistics_markdown();
  for (const HeadStatistic& s : kHeadStatistics)
    EXPECT_NE(table.find("| `" + std::string(s.name) + "`"), std::string::npos) << s.name;
  EXPECT_EQ(table.find("||"), std::string::npos) << "an empty cell";
}

TEST(HeadStatisticsDocs, DocsEmbedTheCurrentTable) {
  testing::expect_docs_embed("docs/analysis.md", head_statistics_markdown(), "head_statistics.md");
}

}  // namespace
}  // namespace sinklab
