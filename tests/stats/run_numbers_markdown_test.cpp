#include "stats/run_numbers_markdown.h"

#include <gtest/gtest.h>

#include <string>

#include "stats/run_numbers.h"
#include "tests/support/docs_embed.h"

namespace sinklab {
namespace {

TEST(RunNumbersDocs, OneLinePerNumber) {
  const std::string table = run_numbers_markdown();
#define SINKLAB_EXPECT_LINE(name, ...) EXPECT_NE(table.find("| `" #name "` |"), std::string::npos) << #name;
  SINKLAB_RUN_NUMBERS(SINKLAB_EXPECT_LINE, SINKLAB_EXPECT_LINE)
  SINKLAB_STEP_NUMBERS(SINKLAB_EXPECT_LINE, SINKLAB_EXPECT_LINE)
#undef SINKLAB_EXPECT_LINE
  EXPECT_EQ(table.find("||"), std::string::npos) << "an empty cell";
}

TEST(RunNumbersDocs, DocsEmbedTheCurrentTable) {
  testing::expect_docs_embed("docs/analysis.md", run_numbers_markdown(), "run_numbers.md");
}

}  // namespace
}  // namespace sinklab
