#include "config_loading/closest_match.h"

#include <gtest/gtest.h>

#include "config_loading/config_schema.h"

namespace sinklab {
namespace {

TEST(EditDistance, CountsInsertionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("normalizr", "normalizer"), 1);
  EXPECT_EQ(edit_distance("layres", "layers"), 1);  // adjacent swap
  EXPECT_EQ(edit_distance("D_MODEL", "d_model"), 0);
  EXPECT_EQ(edit_distance("", "abc"), 3);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
}

TEST(ClosestMatch, SuggestsOnlyPlausibleTypos) {
  const std::vector<std::string> keys = {"scale", "temperature", "normalizer"};
  EXPECT_EQ(closest_match("normaliser", keys), "normalizer");
  EXPECT_EQ(closest_match("temprature", keys), "temperature");
  EXPECT_FALSE(closest_match("dropout", keys).has_value());
  EXPECT_FALSE(closest_match("x", keys).has_value());
}

TEST(ClosestMatch, PicksTheNearestCandidate) {
  EXPECT_EQ(closest_match("beta", {"beta1", "beta2", "eps"}), "beta1");  // ties keep table order
  EXPECT_EQ(closest_match("bet2", {"beta1", "beta2"}), "beta2");
}

TEST(SchemaTable, SectionsListTheirKeysInTableOrder) {
  EXPECT_EQ(child_keys("model.attention"),
            (std::vector<std::string>{"scale", "temperature", "normalizer", "key_bias", "qk_norm", "window", "qkv_bias",
                                      "out_bias"}));
  const auto top = child_keys("");
  EXPECT_EQ(top, (std::vector<std::string>{"name", "seed", "threads", "model", "task", "optimizer", "train",
                                           "analysis"}));
  EXPECT_NE(find_field("model.attention.normalizer.divisor"), nullptr);
  EXPECT_EQ(find_field("model.attention"), nullptr);
  EXPECT_NE(find_section("model.attention"), nullptr);
}

}  // namespace
}  // namespace sinklab
