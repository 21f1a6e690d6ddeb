// model.init_from (config_loading/config_schema.cpp): a path recorded absolute, written only when set (so
// configs without it keep their hashes), part of the config hash (a resume must start from the same
// file) and not of the model-shaping hash (a checkpoint of such a run loads into the config without it).
#include <gtest/gtest.h>

#include <filesystem>

#include "config_loading/config_writer.h"
#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using sinklab::testing::contains;
using sinklab::testing::parse;
using sinklab::testing::parse_error;

TEST(InitFromKey, RelativePathsAreRecordedAbsolute) {
  const RunConfig c = parse("model: {init_from: weights/a/../model.safetensors}\n");
  EXPECT_EQ(c.model.init_from, (std::filesystem::current_path() / "weights/model.safetensors").string());
  EXPECT_EQ(parse("model: {init_from: /x/y.safetensors}\n").model.init_from, "/x/y.safetensors");
  EXPECT_EQ(parse("seed: 1\n", {"model.init_from=/o.safetensors"}).model.init_from, "/o.safetensors");
  // The resolved config loads back to the same value.
  EXPECT_EQ(parse(to_yaml(c)), c);
}

TEST(InitFromKey, AnEmptyPathIsAnError) {
  const ConfigError e = parse_error("model: {init_from: \"\"}\n");
  EXPECT_EQ(e.key(), "model.init_from");
  EXPECT_TRUE(contains(e.detail(), "leave the key out")) << e.what();
}

TEST(InitFromKey, WrittenOnlyWhenSetSoOtherConfigsKeepTheirHashes) {
  const RunConfig plain = parse("seed: 1\n");
  EXPECT_FALSE(contains(to_yaml(plain), "init_from"));
  const RunConfig from_file = parse("seed: 1\nmodel: {init_from: /w/m.safetensors}\n");
  EXPECT_TRUE(contains(to_yaml(from_file), "  init_from: /w/m.safetensors\n")) << to_yaml(from_file);
}

TEST(InitFromKey, InTheConfigHashNotInTheModelShapingHash) {
  const RunConfig plain = parse("seed: 1\n");
  const RunConfig a = parse("seed: 1\nmodel: {init_from: /w/a.safetensors}\n");
  const RunConfig b = parse("seed: 1\nmodel: {init_from: /w/b.safetensors}\n");
  EXPECT_NE(config_hash(plain), config_hash(a));
  EXPECT_NE(config_hash(a), config_hash(b));
  EXPECT_EQ(model_shaping_hash(plain, 16, 16, 16), model_shaping_hash(a, 16, 16, 16));
  EXPECT_EQ(model_shaping_hash(a, 16, 16, 16), model_shaping_hash(b, 16, 16, 16));
  // A model key still counts.
  EXPECT_NE(model_shaping_hash(a, 16, 16, 16), model_shaping_hash(parse("model: {heads: 2}\n"), 16, 16, 16));
}

}  // namespace
}  // namespace sinklab
