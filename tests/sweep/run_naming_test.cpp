#include "sweep/run_naming.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace sinklab::sweep {
namespace {

TEST(NameWithOverrides, NamesEachOverrideByItsLastKeyComponentAndCompactValue) {
  EXPECT_EQ(name_with_overrides("1x1_softmax", {{"model.attention.normalizer", "relu"}}),
            "1x1_softmax-normalizer=relu");
  EXPECT_EQ(name_with_overrides("c", {{"optimizer.lr", "0.00030"}, {"threads", "2"}}), "c-lr=3e-4-threads=2");
  EXPECT_EQ(name_with_overrides("c", {}), "c");
}

TEST(NameWithOverrides, KeysThatWouldReadAlikeKeepMoreOfTheirPath) {
  EXPECT_EQ(name_with_overrides("c", {{"model.attention.dropout", "0.1"}, {"model.embedding.dropout", "0.2"}}),
            "c-attention.dropout=0.1-embedding.dropout=0.2");
  // "name" alone says nothing: the normalizer's map form keeps its parent.
  EXPECT_EQ(name_with_overrides("c", {{"model.attention.normalizer.name", "relu"}}), "c-normalizer.name=relu");
}

TEST(NameWithOverrides, ValuesAreMadeSafeForAFolderName) {
  EXPECT_EQ(name_with_overrides("c", {{"task.name", "a b/c"}}), "c-task.name=a-b-c");
}

TEST(NameWithOverrides, ALongListIsBoundedAndStillUnique) {
  std::vector<KeyValue> many;
  for (int i = 0; i < 30; ++i) many.push_back({"section.key" + std::to_string(i), std::to_string(i)});
  const std::string name = name_with_overrides("base", many);
  EXPECT_LE(name.size(), kMaxNameBytes);
  EXPECT_EQ(name.rfind("base-key0=0-key1=1", 0), 0u) << name;
  for (const char c : name) EXPECT_TRUE(is_safe_path_char(c)) << name;
  std::set<std::string> names{name};
  for (int last = 0; last < 5; ++last) {
    many.back().second = "v" + std::to_string(last);  // differs only past the cut
    const std::string other = name_with_overrides("base", many);
    EXPECT_LE(other.size(), kMaxNameBytes);
    names.insert(other);
  }
  EXPECT_EQ(names.size(), 6u);
  EXPECT_EQ(name_with_overrides("base", many), name_with_overrides("base", many));  // stable
}

TEST(NameWithOverrides, ACutNeverSplitsAUtf8Character) {
  // The cut keeps kMaxNameBytes - 10 bytes (room for "-h" and the hash): here the middle of an "é".
  const std::string base(kMaxNameBytes - 11, 'x');
  const std::string name = name_with_overrides(base + "\xc3\xa9", {{"optimizer.lr", "1"}, {"threads", "2"}});
  EXPECT_LE(name.size(), kMaxNameBytes);
  EXPECT_EQ(name.find('\xc3'), std::string::npos) << "a half character was kept: " << name;
}

}  // namespace
}  // namespace sinklab::sweep
