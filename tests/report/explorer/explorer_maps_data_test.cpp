// The page's description of a run's maps (report/explorer/explorer_page.h: explorer_maps_data).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/explorer/explorer_maps.h"
#include "report/explorer/explorer_page.h"

namespace sinklab {
namespace {

ExplorerMaps three_positions() {
  ExplorerMaps s;
  s.steps = {10};
  s.layers = s.heads = 1;
  s.rows = s.cols = {0, 1, 2};
  s.seq_len = 3;
  s.mean.assign(9, 0.25f);
  s.tokens = {5, 6, 7};
  s.source = "test";
  return s;
}

TEST(ExplorerMapsData, TokenLabelsAreVisibleValidUtf8Text) {
  ExplorerMaps s = three_positions();
  s.token_labels = {" ", "\n<b>", "\xC3"};
  const nlohmann::json j = explorer_maps_data(s, true);
  EXPECT_EQ(j["token_labels"], nlohmann::json::array({"\u2423", "\u23CE<b>", "\\xC3"}));
  EXPECT_EQ(j["tokens"], nlohmann::json::array({5, 6, 7}));
  EXPECT_EQ(j["pooled"], true);
  EXPECT_NO_THROW((void)j.dump());
}

TEST(ExplorerMapsData, NoLabelsIsNull) {
  const nlohmann::json j = explorer_maps_data(three_positions(), false);
  EXPECT_TRUE(j["token_labels"].is_null());
  EXPECT_EQ(j["pooled"], false);
  EXPECT_TRUE(j["example"].is_null());
  ASSERT_EQ(j["mean"].size(), 1u);
}

}  // namespace
}  // namespace sinklab
