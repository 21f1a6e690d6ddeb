// Token texts made visible and valid UTF-8 for the explorer page (report/explorer/token_label_text.h).
#include "report/explorer/token_label_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

namespace sinklab {
namespace {

TEST(TokenLabelText, ShowsSpacesNewlinesAndControlBytes) {
  EXPECT_EQ(token_label_text("a"), "a");
  EXPECT_EQ(token_label_text(" "), "\u2423");
  EXPECT_EQ(token_label_text("\n"), "\u23CE");
  EXPECT_EQ(token_label_text("\t"), "\u2409");
  EXPECT_EQ(token_label_text(std::string(1, '\0')), "\u2400");
  EXPECT_EQ(token_label_text("\x1f"), "\u241F");
  EXPECT_EQ(token_label_text("\x7f"), "\u2421");
  EXPECT_EQ(token_label_text(" the\n"), "\u2423the\u23CE");
}

TEST(TokenLabelText, KeepsMarkupCharactersForTheTextOnlyPage) {
  EXPECT_EQ(token_label_text("<b>&\"'"), "<b>&\"'");
}

TEST(TokenLabelText, KeepsWellFormedUtf8AndHexesEveryOtherByte) {
  EXPECT_EQ(token_label_text("\xC3\xA9"), "\xC3\xA9");                  // é
  EXPECT_EQ(token_label_text("\xE2\x82\xAC"), "\xE2\x82\xAC");          // €
  EXPECT_EQ(token_label_text("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");  // U+1F600
  EXPECT_EQ(token_label_text("\xC3"), "\\xC3");                          // half of é (a byte tokenizer)
  EXPECT_EQ(token_label_text("\xA9"), "\\xA9");
  EXPECT_EQ(token_label_text("\xFF" "a"), "\\xFFa");
  EXPECT_EQ(token_label_text("\xC0\xAF"), "\\xC0\\xAF");          // overlong '/'
  EXPECT_EQ(token_label_text("\xED\xA0\x80"), "\\xED\\xA0\\x80");  // a UTF-16 surrogate
  EXPECT_EQ(token_label_text("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(token_label_text("\xE2\x82"), "\\xE2\\x82");          // cut short
}

TEST(TokenLabelText, EveryByteStringGivesValidUtf8) {
  // nlohmann::json refuses invalid UTF-8 when dumping: every one- and two-byte string must pass.
  for (int a = 0; a < 256; ++a)
    for (int b = -1; b < 256; ++b) {
      std::string bytes(1, static_cast<char>(a));
      if (b >= 0) bytes += static_cast<char>(b);
      ASSERT_NO_THROW((void)nlohmann::json(token_label_text(bytes)).dump()) << a << " " << b;
    }
}

}  // namespace
}  // namespace sinklab
