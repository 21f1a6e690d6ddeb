// model.tie_embeddings and model.mlp_activation: gelu_tanh (GPT-2's head and MLP as config keys): the
// tie needs token input and an output head (token tasks score one class per embedding row, which
// layers/transformer.cpp checks again); tie_embeddings: false is
// left out of config.yaml and of both hashes, so checkpoints of runs from before the key still load
// and resume; true is written, read back and changes the model-shaping hash.
#include <gtest/gtest.h>

#include "config_loading/config_writer.h"
#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using sinklab::testing::contains;

const char kCopyModel[] =
    "model: {d_model: 8, input: tokens, vocab_size: 8, output_head: true, positional: learned}\n"
    "task: {name: copy, vocab_size: 8, seq_len: 8}\n";

RunConfig parse(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return parse_run_config(yaml, "configs/x.yaml", overrides, {{"softmax"}, {"trigger_conditional", "copy"}});
}

ConfigError parse_error(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    parse(yaml, overrides);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError";
  return ConfigError("", 0, "", "");
}

TEST(TieEmbeddingsKey, TokenModelWithHeadTiesAndRoundTrips) {
  const RunConfig c =
      parse(kCopyModel, {"model.tie_embeddings=true", "model.mlp_hidden=16", "model.mlp_activation=gelu_tanh"});
  EXPECT_TRUE(c.model.tie_embeddings);
  EXPECT_EQ(c.model.mlp_activation, Activation::gelu_tanh);
  EXPECT_TRUE(contains(to_yaml(c), "  tie_embeddings: true\n")) << to_yaml(c);
  EXPECT_TRUE(contains(to_yaml(c), "  mlp_activation: gelu_tanh\n")) << to_yaml(c);
  EXPECT_EQ(parse(to_yaml(c)), c);
}

TEST(TieEmbeddingsKey, FalseIsLeftOutSoOlderRunsKeepTheirHashes) {
  const RunConfig plain = parse(kCopyModel);
  const RunConfig explicit_false = parse(kCopyModel, {"model.tie_embeddings=false"});
  const RunConfig tied = parse(kCopyModel, {"model.tie_embeddings=true"});
  EXPECT_FALSE(contains(to_yaml(plain), "tie_embeddings")) << to_yaml(plain);
  EXPECT_EQ(to_yaml(plain), to_yaml(explicit_false));
  EXPECT_EQ(config_hash(plain), config_hash(explicit_false));
  EXPECT_EQ(model_shaping_hash(plain, 8, 8, 8), model_shaping_hash(explicit_false, 8, 8, 8));
  EXPECT_NE(model_shaping_hash(plain, 8, 8, 8), model_shaping_hash(tied, 8, 8, 8));
}

TEST(TieEmbeddingsKey, NeedsTokensAndAnOutputHead) {
  ConfigError e = parse_error("model: {output_head: true, tie_embeddings: true}\n");  // vector input
  EXPECT_EQ(e.key(), "model.tie_embeddings");
  EXPECT_TRUE(contains(e.detail(), "needs input: tokens and output_head: true")) << e.what();
  e = parse_error(kCopyModel, {"model.output_head=false", "model.d_model=8", "model.tie_embeddings=true"});
  EXPECT_TRUE(contains(e.detail(), "needs input: tokens and output_head: true")) << e.what();
  EXPECT_TRUE(contains(parse_error("model: {mlp_activation: gelu_tanhh}\n").what(), "gelu_tanh"));
}

}  // namespace
}  // namespace sinklab
