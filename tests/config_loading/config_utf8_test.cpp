// String values must be valid UTF-8: they end up in file names, JSON summaries and messages, and a
// byte that is not UTF-8 must be refused where it was written, not found later by the JSON writer.
#include <gtest/gtest.h>

#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using testing::contains;
using testing::parse;
using testing::parse_error;

// The message itself must stay printable and valid UTF-8: the bad byte is shown escaped.
void expect_escaped(const ConfigError& e) {
  const std::string what = e.what();
  for (const char ch : what) EXPECT_LT(static_cast<unsigned char>(ch), 0x80) << what;
}

TEST(ConfigUtf8, InvalidBytesInTheNameAreRejectedAtTheirLine) {
  const auto e = parse_error("seed: 1\nname: run\xff\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.key(), "name");
  EXPECT_TRUE(contains(e.what(), "is not valid UTF-8 (byte 0xff at offset 3)")) << e.what();
  expect_escaped(e);
}

TEST(ConfigUtf8, InvalidBytesInAnOverrideNameTheOverride) {
  const auto e = parse_error("seed: 1\n", {"name=ab\xc3("});
  EXPECT_EQ(e.key(), "name");
  EXPECT_TRUE(contains(e.source(), "--set name=ab\\xc3(")) << e.source();
  EXPECT_TRUE(contains(e.what(), "is not valid UTF-8 (byte 0xc3 at offset 2)")) << e.what();
  expect_escaped(e);
}

TEST(ConfigUtf8, EveryStringFieldIsChecked) {
  auto e = parse_error("task:\n  name: trig\xe2\x82\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.key(), "task.name");
  e = parse_error("model:\n  attention:\n    normalizer: re\x80lu\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.key(), "model.attention.normalizer.name");
  e = parse_error("model:\n  norm: lay\xfe\n");
  EXPECT_EQ(e.key(), "model.norm");
  EXPECT_TRUE(contains(e.what(), "not valid UTF-8")) << e.what();
}

TEST(ConfigUtf8, OverlongSurrogateAndTooLargeCodePointsAreInvalid) {
  for (const char* bad : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xf8\x88\x80\x80\x80"}) {
    const auto e = parse_error(std::string("name: a") + bad + "\n");
    EXPECT_TRUE(contains(e.what(), "not valid UTF-8")) << e.what();
  }
}

TEST(ConfigUtf8, ValidMultiByteTextIsKept) {
  EXPECT_EQ(parse("name: r\xc3\xa9sum\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x99\x82\n").name,
            "r\xc3\xa9sum\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x99\x82");
}

TEST(ConfigUtf8, InvalidBytesInAKeyAreEscapedInTheMessage) {
  const auto e = parse_error("mod\xffl:\n  heads: 1\n");
  EXPECT_EQ(e.line(), 1);
  EXPECT_TRUE(contains(e.what(), "not valid UTF-8")) << e.what();
  expect_escaped(e);
}

}  // namespace
}  // namespace sinklab
