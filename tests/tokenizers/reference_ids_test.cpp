// Ids identical to the reference (@huggingface/tokenizers on the same tokenizer.json, checked against
// each family's own vocabulary package: tools/tokenizer_fixtures/make_fixtures.mjs) for every text:
// the KJV excerpt whole and line by line, the hostile text (emoji, CJK, combining marks, RTL, invalid
// UTF-8, whitespace runs, digits, odd-case contractions, special-token text), a text embedding every
// added token of the family, and 300 fuzzed strings. With and without special tokens; decoding too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/tokenizers/tokenizer_fixtures.h"

namespace sinklab {
namespace {

namespace st = sinklab::testing;

class ReferenceIds : public ::testing::TestWithParam<std::string> {};

std::string show(const std::vector<int32_t>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size() && i < 40; ++i) s += (i ? " " : "") + std::to_string(ids[i]);
  return s + (ids.size() > 40 ? " ..." : "");
}

TEST_P(ReferenceIds, EveryTextEncodesAndDecodesAsTheReference) {
  const std::string family = GetParam();
  const Tokenizer& tok = st::family_tokenizer(family);
  const nlohmann::json expected = st::expected_for(family);
  const auto& texts = st::fixture_texts();
  size_t checked = 0, mismatched = 0;
  for (const auto& c : expected.at("cases")) {
    const std::string name = c.at("text");
    const std::string text =
        name == "added_tokens" ? st::base64_decode(expected.at("added_tokens_text")) : texts.at(name);
    const auto ids = c.at("ids").get<std::vector<int32_t>>();
    const auto plain = c.at("ids_no_special").get<std::vector<int32_t>>();
    const auto got = tok.encode(text, true);
    const auto got_plain = tok.encode(text, false);
    const bool ok = got == ids && got_plain == plain && tok.decode(plain) == c.at("decoded").get<std::string>() &&
                    tok.decode(ids, true) == c.at("decoded_skip_special").get<std::string>();
    if (!ok && ++mismatched <= 5) {
      ADD_FAILURE() << family << " text " << name << "\n  expected " << show(ids) << "\n  got      " << show(got)
                    << "\n  no special: expected " << show(plain) << "\n              got      " << show(got_plain)
                    << "\n  decoded: expected \"" << c.at("decoded").get<std::string>() << "\"\n           got      \""
                    << tok.decode(plain) << "\"";
    }
    ++checked;
  }
  EXPECT_EQ(mismatched, 0u) << "of " << checked << " texts";
  EXPECT_GT(checked, 350u);  // every fixture text was there to compare
}

INSTANTIATE_TEST_SUITE_P(Families, ReferenceIds,
                         ::testing::Values("gpt2", "neox", "llama2", "mistral", "llama3", "qwen3"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace sinklab
