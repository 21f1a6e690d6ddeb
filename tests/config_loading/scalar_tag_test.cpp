// Explicit YAML core tags: `!!int 0` is the integer 0, `!!str 0` the string "0"; other tags are refused.
#include <gtest/gtest.h>

#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using testing::contains;
using testing::parse;
using testing::parse_error;

TEST(ScalarTags, CoreTagsAreHonoured) {
  const RunConfig c = parse(
      "seed: !!int 0\nthreads: !!int 2\nname: !!str 123\nmodel:\n  residual: !!bool false\n"
      "optimizer:\n  lr: !!float 1.0e-3\n  beta1: !!int 0\n");
  EXPECT_EQ(c.seed, 0u);
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.name, "123");
  EXPECT_FALSE(c.model.residual);
  EXPECT_EQ(c.optimizer.lr, 1e-3);
  EXPECT_EQ(c.optimizer.beta1, 0.0);
  EXPECT_EQ(parse("seed: 1\n", {"seed=!!int 5"}).seed, 5u);
}

TEST(ScalarTags, ATagThatContradictsTheKeyIsAnError) {
  auto e = parse_error("seed: !!str 0\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:1: seed: expected a non-negative integer, got the string !!str '0'");
  e = parse_error("threads: !!float 2\n");
  EXPECT_EQ(e.key(), "threads");
  EXPECT_TRUE(contains(e.what(), "expected an integer, got !!float '2'")) << e.what();
  e = parse_error("seed: !!int abc\n");
  EXPECT_TRUE(contains(e.what(), "expected a non-negative integer, got !!int 'abc'")) << e.what();
  e = parse_error("model:\n  residual: !!int 1\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.what(), "expected true or false, got !!int '1'")) << e.what();
  e = parse_error("optimizer:\n  lr: !!bool true\n");
  EXPECT_TRUE(contains(e.what(), "expected a number, got !!bool 'true'")) << e.what();
}

TEST(ScalarTags, OtherTagsAreRefusedWithTheKey) {
  auto e = parse_error("seed: 1\nthreads: !custom 3\n");
  EXPECT_STREQ(e.what(),
               "configs/x.yaml:2: threads: unsupported YAML tag '!custom'; only !!int, !!float, !!bool and !!str "
               "are understood");
  e = parse_error("name: !!binary aGk=\n");
  EXPECT_TRUE(contains(e.what(), "unsupported YAML tag '!!binary'")) << e.what();
}

}  // namespace
}  // namespace sinklab
