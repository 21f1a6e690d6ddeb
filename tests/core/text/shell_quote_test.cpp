// Quoted arguments survive a POSIX shell unchanged: checked by the quoting rules and by running the
// quoted words through `sh -c` and reading back what the shell passed on.
#include "core/text/shell_quote.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

namespace sinklab {
namespace {

TEST(ShellQuote, PlainWordsStayBare) {
  EXPECT_EQ(shell_quote("runs/x-seed1"), "runs/x-seed1");
  EXPECT_EQ(shell_quote("build/sinklab"), "build/sinklab");
  EXPECT_EQ(shell_quote("--set=train.lr=1e-3"), "--set=train.lr=1e-3");
}

TEST(ShellQuote, SpecialCharactersAreSingleQuoted) {
  EXPECT_EQ(shell_quote("my runs/x"), "'my runs/x'");
  EXPECT_EQ(shell_quote("a;rm -rf b"), "'a;rm -rf b'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(ShellQuote, TheShellReadsBackTheOriginalWords) {
  const std::vector<std::string> words{"my run", "a;b", "it's", "", "$(touch x)", "`x`", "back\\slash", "*", "~"};
  std::vector<std::string> command{"printf", "[%s]\\n"};
  command.insert(command.end(), words.begin(), words.end());
  FILE* shell = popen(("sh -c " + shell_quote(shell_command(command))).c_str(), "r");
  ASSERT_NE(shell, nullptr);
  std::string out;
  std::array<char, 256> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), shell)) out.append(buf.data(), n);
  EXPECT_EQ(pclose(shell), 0);
  std::string expected;
  for (const std::string& w : words) expected += "[" + w + "]\n";
  EXPECT_EQ(out, expected);
}

TEST(ShellCommand, JoinsQuotedWordsWithSpaces) {
  EXPECT_EQ(shell_command({"build/sinklab", "train", "--resume", "runs/my run"}),
            "build/sinklab train --resume 'runs/my run'");
}

}  // namespace
}  // namespace sinklab
