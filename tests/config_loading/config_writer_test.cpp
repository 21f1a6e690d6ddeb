// to_yaml: every key, re-loadable to an equal config; config_hash: FNV-1a 64 of it.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "config_loading/config_schema.h"
#include "config_loading/plugin_fields.h"
#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using testing::parse;

RunConfig round_trip(const RunConfig& c) {
  return parse_run_config(to_yaml(c), "resolved.yaml", {}, testing::test_vocab());
}

// An independent FNV-1a 64, checked against the published test vector below.
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 14695981039346656037ULL;
  for (const unsigned char ch : s) h = (h ^ ch) * 1099511628211ULL;
  return h;
}

TEST(ConfigWriter, DefaultsRoundTrip) {
  RunConfig c;
  c.name = std::string("defaults");
  resolve_plugin_defaults(c);  // as the loader leaves every config
  EXPECT_EQ(round_trip(c), c);
}

TEST(ConfigWriter, NonDefaultValuesRoundTripExactly) {
  const RunConfig c = parse(
      "name: 'odd: name'\nseed: 18446744073709551615\nthreads: 2\n"
      "model:\n  d_model: 24\n  layers: 3\n  heads: 2\n  head_dim: 6\n  residual: true\n  norm: rms_norm\n"
      "  mlp_hidden: 48\n  mlp_activation: relu\n  bias: true\n  init: kaiming\n  init_std: 0.1\n"
      "  positional: rope\n  input_projection: true\n  output_head: true\n"
      "  attention: {scale: temperature, temperature: 0.3, normalizer: {name: relu, divisor: none}}\n"
      "task:\n  seq_len: 12\n  trigger_min: 1\n  trigger_max: 9\n  eval_trigger: 3\n  target: mean\n"
      "  eval_samples: 50\n  eval_seed: 9\n"
      "optimizer:\n  name: sgd\n  lr: 0.1\n  momentum: 0.9\n  weight_decay: 1.0e-4\n  schedule: cosine\n"
      "  warmup_steps: 100\n  min_lr: 1.0e-7\n  clip_grad_norm: 1.0\n"
      "train:\n  batch_size: 7\n  max_steps: 1000\n  stop_max_abs_error: 0\n  stop_loss: 1.0e-9\n"
      "  eval_every: 0\n  log_every: 3\n  checkpoint_every: 10\n"
      "analysis:\n  sink_eps: 0.123456789012345\n  eval_attention_samples: 50\n");
  EXPECT_EQ(c.model.attention.normalizer.options.get<std::string>("divisor"), "none");
  EXPECT_EQ(c.seed, 18446744073709551615ULL);
  EXPECT_EQ(round_trip(c), c);
}

TEST(ConfigWriter, ListsEveryKeyThatBelongs) {
  RunConfig c;
  c.name = std::string("every_key");
  const YAML::Node doc = YAML::Load(to_yaml(c));
  for (const auto& field : config_fields()) {
    YAML::Node node = doc;
    std::string path = field.path;
    for (std::size_t start = 0;;) {
      const auto dot = path.find('.', start);
      node.reset(node[path.substr(start, dot - start)]);
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    // c holds every default, so a key marked omit_at_default is left out (written once set:
    // tests/config_loading/tie_embeddings_key_test.cpp).
    const bool belongs = (!field.misplaced || field.misplaced(c).empty()) && !field.omit_at_default;
    EXPECT_EQ(node.IsDefined(), belongs) << field.path;
  }
  // The default normalizer is softmax: its temperature is written, the relu divisor is not.
  EXPECT_TRUE(doc["model"]["attention"]["normalizer"]["temperature"].IsDefined());
  EXPECT_FALSE(doc["model"]["attention"]["normalizer"]["divisor"].IsDefined());
}

TEST(ConfigWriter, NumbersAreWrittenShortAndExact) {
  EXPECT_EQ(format_number(0.001), "0.001");
  EXPECT_EQ(format_number(5.0), "5.0");
  EXPECT_EQ(format_number(1e-8), "1e-08");
  RunConfig c;
  c.name = std::string("n");
  const std::string text = to_yaml(c);
  EXPECT_NE(text.find("  lr: 0.001\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  init_std: 0.02\n"), std::string::npos) << text;
}

TEST(ConfigWriter, HashIsFnv1aOfTheYamlAndTracksChanges) {
  ASSERT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cULL);  // published FNV-1a 64 test vector
  RunConfig a;
  a.name = std::string("h");
  EXPECT_EQ(config_hash(a), fnv1a(to_yaml(a)));
  RunConfig b = a;
  EXPECT_EQ(config_hash(a), config_hash(b));
  b.optimizer.lr = 2e-3;
  EXPECT_NE(config_hash(a), config_hash(b));
}

}  // namespace
}  // namespace sinklab
