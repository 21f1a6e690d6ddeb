// `name` names the run folder (runs/<name>-seed<seed>): it must be one harmless path component.
#include <gtest/gtest.h>

#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using testing::contains;
using testing::parse;
using testing::parse_error;

TEST(RunName, PathsAndSpecialComponentsAreRejected) {
  for (const char* bad : {"\"../../x\"", "/etc/passwd", "a/b", "\".\"", "\"..\"", "a\\\\b"}) {
    const auto e = parse_error(std::string("seed: 1\nname: ") + bad + "\n");
    EXPECT_EQ(e.line(), 2) << bad;
    EXPECT_EQ(e.key(), "name") << bad;
    EXPECT_TRUE(contains(e.what(), "must be a single folder name")) << e.what();
  }
}

TEST(RunName, ControlCharactersAndALeadingDashAreRejected) {
  auto e = parse_error("name: \"line\\nbreak\"\n");
  EXPECT_EQ(e.key(), "name");
  EXPECT_TRUE(contains(e.what(), "control character")) << e.what();
  EXPECT_TRUE(contains(e.what(), "line\\x0abreak")) << e.what();  // shown escaped, on one line
  e = parse_error("name: \"tab\\there\"\n");
  EXPECT_TRUE(contains(e.what(), "control character")) << e.what();
  e = parse_error("name: -rf\n");
  EXPECT_TRUE(contains(e.what(), "must not start with '-'")) << e.what();
  e = parse_error("name: \"\"\n");
  EXPECT_TRUE(contains(e.what(), "must not be empty")) << e.what();
}

TEST(RunName, LongNamesAreRejectedWithoutEchoingThem) {
  EXPECT_EQ(parse("name: " + std::string(100, 'a') + "\n").name.size(), 100u);
  auto e = parse_error("name: " + std::string(101, 'a') + "\n");
  EXPECT_TRUE(contains(e.what(), "name: must be at most 100 bytes, got 101")) << e.what();
  const std::string huge(5u << 20, 'x');  // 5 MB: YAML-parsing the 50 MB of the report takes seconds
  e = parse_error("seed: 1\n", {"name=" + huge});
  EXPECT_EQ(e.key(), "name");
  EXPECT_TRUE(contains(e.what(), "must be at most 100 bytes, got 5242880")) << e.what();
  EXPECT_LT(std::string(e.what()).size(), 400u) << "the message must not repeat the value";
}

TEST(RunName, OrdinaryNamesAreKept) {
  for (const char* ok : {"run_1", "lr=3e-4", "odd: name", "r\xc3\xa9sum\xc3\xa9", "a.b", "x-"}) {
    EXPECT_EQ(parse(std::string("name: '") + ok + "'\n").name, ok);
  }
}

TEST(RunName, ABadFileStemIsReportedAsTheDefaultName) {
  try {
    parse_run_config("seed: 1\n", "dir/-x.yaml", {}, testing::test_vocab());
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "name");
    EXPECT_TRUE(contains(e.what(), "defaults to the config file's stem")) << e.what();
  }
}

}  // namespace
}  // namespace sinklab
