// `--set a.b.c=value` overrides: applied after the file, may create keys, errors name the override.
#include <gtest/gtest.h>

#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using testing::contains;
using testing::parse;
using testing::parse_error;
using testing::quoted_owners_of;

constexpr const char* kBase = "seed: 1\nmodel:\n  heads: 1\n  attention:\n    normalizer: relu\n";

TEST(ConfigOverride, ReplacesAFileValueAndCreatesMissingKeys) {
  const RunConfig c = parse(kBase, {"seed=7", "model.heads=2", "model.residual=true", "model.layers=2",
                                    "optimizer.lr=1e-4", "train.batch_size=32"});
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.model.heads, 2);
  EXPECT_TRUE(c.model.residual);
  EXPECT_EQ(c.model.layers, 2);
  EXPECT_EQ(c.optimizer.lr, 1e-4);
  EXPECT_EQ(c.train.batch_size, 32);
}

TEST(ConfigOverride, CreatesWholeMissingSectionsAndNestedKeys) {
  const RunConfig c = parse("seed: 1\n", {"model.attention.scale=inv_sqrt_head_dim", "analysis.sink_eps=0.5"});
  EXPECT_EQ(c.model.attention.scale, ScaleKind::inv_sqrt_head_dim);
  EXPECT_EQ(c.analysis.sink_eps, 0.5);
}

TEST(ConfigOverride, ValueIsYamlSoAMapCanReplaceASection) {
  const RunConfig c = parse(kBase, {"model.attention.normalizer={name: relu, divisor: seq_len}"});
  EXPECT_EQ(c.model.attention.normalizer.options.get<std::string>("divisor"), "seq_len");
  const RunConfig back = parse(kBase, {"model.attention.normalizer=softmax"});
  EXPECT_EQ(back.model.attention.normalizer.name, "softmax");
}

TEST(ConfigOverride, OptionBelowAShorthandNormalizerExpandsIt) {
  const RunConfig c = parse(kBase, {"model.attention.normalizer.divisor=visible"});
  EXPECT_EQ(c.model.attention.normalizer.name, "relu");
  EXPECT_EQ(c.model.attention.normalizer.options.get<std::string>("divisor"), "visible");
}

TEST(ConfigOverride, FillsAnEmptyFileSection) {
  const RunConfig c = parse("seed: 1\nmodel:\n", {"model.heads=2", "model.head_dim=split"});
  EXPECT_EQ(c.model.heads, 2);
  EXPECT_EQ(resolved_head_dim(c.model), 8);
  const auto e = parse_error("seed: 1\nmodel:\n", {"model.attention.normalizer.divisor=seq_len"});
  EXPECT_TRUE(contains(e.what(),
                       "--set model.attention.normalizer.divisor=seq_len: "
                       "model.attention.normalizer.divisor: is an option of normalizers " +
                           quoted_owners_of("divisor") + " only"))
      << e.what();
}

TEST(ConfigOverride, LaterOverrideWins) {
  EXPECT_EQ(parse(kBase, {"seed=2", "seed=3"}).seed, 3u);
}

TEST(ConfigOverride, OverrideCanFixABadFileValue) {
  EXPECT_EQ(parse("seed: 1\nmodel:\n  heads: many\n", {"model.heads=1"}).model.heads, 1);
}

TEST(ConfigOverride, TypeErrorNamesTheOverride) {
  const auto e = parse_error(kBase, {"model.heads=two"});
  EXPECT_STREQ(e.what(), "--set model.heads=two: model.heads: expected an integer, got 'two'");
  EXPECT_EQ(e.line(), 0);
  EXPECT_EQ(e.source(), "--set model.heads=two");
}

TEST(ConfigOverride, NestedMapValueErrorsNameTheOverride) {
  const auto e = parse_error(kBase, {"model.attention.normalizer={name: relu, divisor: all}"});
  EXPECT_EQ(e.source(), "--set model.attention.normalizer={name: relu, divisor: all}");
  EXPECT_EQ(e.key(), "model.attention.normalizer.divisor");
  EXPECT_TRUE(contains(e.what(), "allowed: visible_non_bos | visible | seq_len | none")) << e.what();
}

TEST(ConfigOverride, UnknownPathGetsDidYouMean) {
  const auto e = parse_error(kBase, {"model.attention.normalizr=relu"});
  EXPECT_STREQ(e.what(),
               "--set model.attention.normalizr=relu: model.attention.normalizr: unknown key; did you mean "
               "'normalizer'?");
  const auto top = parse_error(kBase, {"optimiser.lr=0.1"});
  EXPECT_TRUE(contains(top.what(), "optimiser: unknown key; did you mean 'optimizer'?")) << top.what();
}

TEST(ConfigOverride, PathThroughASingleValue) {
  const auto e = parse_error(kBase, {"model.d_model.size=3"});
  EXPECT_STREQ(e.what(), "--set model.d_model.size=3: model.d_model: is a single value and has no key 'size'");
}

TEST(ConfigOverride, MalformedOverrides) {
  auto e = parse_error(kBase, {"model.heads"});
  EXPECT_STREQ(e.what(), "--set model.heads: malformed override: expected key.path=value, e.g. model.heads=2");
  e = parse_error(kBase, {"=3"});
  EXPECT_TRUE(contains(e.what(), "malformed override")) << e.what();
  e = parse_error(kBase, {"model..heads=3"});
  EXPECT_TRUE(contains(e.what(), "malformed key path: empty part between dots")) << e.what();
  e = parse_error(kBase, {"model.attention.normalizer={name: relu"});
  EXPECT_TRUE(contains(e.what(), "YAML syntax error in the value")) << e.what();
  e = parse_error(kBase, {"optimizer.lr="});
  EXPECT_TRUE(contains(e.what(), "--set optimizer.lr=: optimizer.lr: expected a single value")) << e.what();
  // Sections set to nothing are refused too, not reset to their defaults.
  e = parse_error(kBase, {"model.attention.normalizer="});
  EXPECT_TRUE(contains(e.what(),
                       "--set model.attention.normalizer=: model.attention.normalizer: expected a value or a map of "
                       "keys, got nothing (null)"))
      << e.what();
  e = parse_error(kBase, {"model="});
  EXPECT_TRUE(contains(e.what(), "model: expected a map of keys, got nothing (null)")) << e.what();
  e = parse_error(kBase, {"model.attention=~"});
  EXPECT_TRUE(contains(e.what(), "model.attention: expected a map of keys, got nothing (null)")) << e.what();
}

TEST(ConfigOverride, CrossKeyErrorCausedByAnOverrideBlamesIt) {
  const auto e = parse_error("model:\n  d_model: 16\n  head_dim: split\n", {"model.heads=3"});
  EXPECT_EQ(e.source(), "--set model.heads=3");
  EXPECT_TRUE(contains(e.what(), "3 heads do not divide d_model 16")) << e.what();
}

TEST(ConfigOverride, FileErrorsKeepTheirLinesWhenOtherKeysAreOverridden) {
  const auto e = parse_error("seed: 1\nmodel:\n  headz: 2\n", {"model.heads=2"});
  EXPECT_EQ(e.source(), "configs/x.yaml");
  EXPECT_EQ(e.line(), 3);
}

TEST(ConfigOverride, CannotDescendIntoAFileScalarSection) {
  const auto e = parse_error("seed: 1\nmodel: 3\n", {"model.heads=2"});
  EXPECT_STREQ(e.what(), "configs/x.yaml:2: model: expected a map of keys, got '3'");
}

}  // namespace
}  // namespace sinklab
