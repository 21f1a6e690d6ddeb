// The parts of tokenizer.json that the real files do not exercise (or not every way), on small files
// written here: added-token flags, the old Metaspace form, Split as GPT-2's ByteLevel, the
// tokenizer_config.json flags, decoders, invalid UTF-8; and the families' BOS/EOS and names.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/tokenizers/tokenizer_fixtures.h"
#include "tokenizers/pre_tokenizers.h"
#include "tokenizers/utf8.h"

namespace sinklab {
namespace {

namespace st = sinklab::testing;
using nlohmann::json;

// A BPE over the letters a-e and "▁" with merges a+b, ab+c, c+d; no normalizer, no pre-tokenizer.
json tiny(json added = json::array()) {
  json vocab = {{"a", 0}, {"b", 1}, {"c", 2}, {"d", 3}, {"e", 4}, {"▁", 5}, {"ab", 6}, {"abc", 7}, {"cd", 8}};
  return {{"added_tokens", added},
          {"normalizer", nullptr},
          {"pre_tokenizer", nullptr},
          {"post_processor", nullptr},
          {"decoder", nullptr},
          {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"a b", "ab c", "c d"}}}}};
}

json added_token(int id, const std::string& content, bool lstrip = false, bool rstrip = false,
                 bool single_word = false) {
  return {{"id", id}, {"content", content}, {"special", true}, {"normalized", false},
          {"lstrip", lstrip}, {"rstrip", rstrip}, {"single_word", single_word}};
}

std::vector<int32_t> ids(std::initializer_list<int32_t> l) { return std::vector<int32_t>(l); }

TEST(TokenizerBpe, MergesByRankLeftmostFirst) {
  const Tokenizer t = Tokenizer::from_json(tiny().dump());
  EXPECT_EQ(t.encode("abcd"), ids({7, 3}));  // a+b (rank 0) before c+d (rank 2), then ab+c
  EXPECT_EQ(t.encode("cdab"), ids({8, 6}));
  EXPECT_EQ(t.encode("abab"), ids({6, 6}));
  EXPECT_EQ(t.decode(ids({7, 3})), "abc d");  // no decoder: tokens joined by spaces, as HF does
}

TEST(TokenizerBpe, RankOrderDecidesBetweenOverlappingMerges) {
  json j = tiny();
  j["model"]["merges"] = {"b c", "a b", "ab c", "c d"};
  j["model"]["vocab"]["bc"] = 9;
  // b+c now ranks first: "abc" -> a, bc (ab+c never gets its chance).
  EXPECT_EQ(Tokenizer::from_json(j.dump()).encode("abc"), ids({0, 9}));
  EXPECT_EQ(Tokenizer::from_json(tiny().dump()).encode("abc"), ids({7}));
}

TEST(TokenizerBpe, UnknownCharactersAreDroppedWithoutUnkAndFusedWithFuseUnk) {
  json j = tiny();
  EXPECT_TRUE(Tokenizer::from_json(j.dump()).encode("zzz").empty());  // tokenizes to nothing
  EXPECT_EQ(Tokenizer::from_json(j.dump()).encode("azzb"), ids({6}));  // a and b meet once z is gone
  j["model"]["vocab"]["<unk>"] = 9;
  j["model"]["unk_token"] = "<unk>";
  EXPECT_EQ(Tokenizer::from_json(j.dump()).encode("azzb"), ids({0, 9, 9, 1}));
  j["model"]["fuse_unk"] = true;
  EXPECT_EQ(Tokenizer::from_json(j.dump()).encode("azzb"), ids({0, 9, 1}));
}

TEST(TokenizerAddedTokens, LongestMatchWinsAtTheLeftmostPosition) {
  const Tokenizer t = Tokenizer::from_json(tiny({added_token(20, "<x>"), added_token(21, "<x>y")}).dump());
  EXPECT_EQ(t.encode("a<x>yb<x>"), ids({0, 21, 1, 20}));
}

TEST(TokenizerAddedTokens, LstripAndRstripSwallowTheWhitespaceBeside) {
  json j = tiny({added_token(20, "<l>", true, false), added_token(21, "<r>", false, true)});
  j["model"]["vocab"][" "] = 10;
  const Tokenizer t = Tokenizer::from_json(j.dump());
  EXPECT_EQ(t.encode("a  <l> b"), ids({0, 20, 10, 1}));
  EXPECT_EQ(t.encode("a <r>  b"), ids({0, 10, 21, 1}));
  json k = tiny({added_token(20, "<l>"), added_token(21, "<r>")});
  k["model"]["vocab"][" "] = 10;
  EXPECT_EQ(Tokenizer::from_json(k.dump()).encode("a  <l> b"), ids({0, 10, 10, 20, 10, 1}));
}

TEST(TokenizerAddedTokens, SingleWordIsNotMatchedInsideAWord) {
  json j = tiny({added_token(20, "ee", false, false, true)});
  j["model"]["vocab"][" "] = 10;
  const Tokenizer t = Tokenizer::from_json(j.dump());
  EXPECT_EQ(t.encode("a ee"), ids({0, 10, 20}));
  EXPECT_EQ(t.encode("aee ee"), ids({0, 4, 4, 10, 20}));  // the first "ee" touches a letter: the model's e, e
  EXPECT_EQ(t.encode("eeb ee"), ids({4, 4, 1, 10, 20}));  // a letter after it counts too
  j["added_tokens"][0]["single_word"] = false;
  EXPECT_EQ(Tokenizer::from_json(j.dump()).encode("aee ee"), ids({0, 20, 10, 20}));
}

TEST(TokenizerAddedTokens, NormalizedTokensAreMatchedAfterTheNormalizer) {
  json added = added_token(20, "<e>");
  added["normalized"] = true;
  json j = tiny({added});
  j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", "x"}}}, {"content", "e"}};
  // "<x>" normalizes to "<e>", the added token.
  EXPECT_EQ(Tokenizer::from_json(j.dump()).encode("a<x>b"), ids({0, 20, 1}));
  added["normalized"] = false;
  j["added_tokens"] = json::array({added});
  // Matched in the raw text only: "<x>" is not it; the model drops < and > (no unk), keeps e.
  EXPECT_EQ(Tokenizer::from_json(j.dump()).encode("a<x>b"), ids({0, 4, 1}));
  EXPECT_EQ(Tokenizer::from_json(j.dump()).encode("a<e>b"), ids({0, 20, 1}));
}

TEST(TokenizerConfig, AddsBosAndEosWhenTheFileHasNoTemplate) {
  const json j = tiny({added_token(20, "<s>"), added_token(21, "</s>")});
  const json config = {
      {"add_bos_token", true}, {"add_eos_token", true}, {"bos_token", {{"content", "<s>"}}}, {"eos_token", "</s>"}};
  const Tokenizer t = Tokenizer::from_json(j.dump(), config.dump());
  EXPECT_EQ(t.encode("ab"), ids({20, 6, 21}));
  EXPECT_EQ(t.encode("ab", false), ids({6}));
  EXPECT_EQ(t.bos_id(), 20);
  EXPECT_EQ(t.eos_id(), 21);
  EXPECT_EQ(t.decode(ids({20, 6, 21}), true), "ab");
  EXPECT_EQ(t.decode(ids({20, 6, 21})), "<s> ab </s>");
  // A template in tokenizer.json decides, whatever the config says.
  json templ = j;
  templ["post_processor"] = {
      {"type", "TemplateProcessing"},
      {"single", {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}}}},
      {"special_tokens", {{"</s>", {{"id", "</s>"}, {"ids", {21}}, {"tokens", {"</s>"}}}}}}};
  EXPECT_EQ(Tokenizer::from_json(templ.dump(), config.dump()).encode("ab"), ids({6, 21}));
}

TEST(TokenizerMetaspace, OldAddPrefixSpaceFormSplitsAtEverySpaceLikeTheLegacyNormalizer) {
  // Llama-2's vocabulary as the older Metaspace(add_prefix_space) file: split at each space, so with
  // single spaces between words the ids are those of the legacy Prepend/Replace file.
  json j = json::parse(st::family_files("llama2").tokenizer_json);
  const Tokenizer legacy = st::family_tokenizer("llama2");
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "▁"}, {"add_prefix_space", true}};
  const Tokenizer old_form = Tokenizer::from_json(j.dump());
  size_t lines = 0;
  for (const auto& [name, text] : st::fixture_texts()) {
    if (name.rfind("kjv_line_", 0) != 0 || text.empty()) continue;
    EXPECT_EQ(old_form.encode(text), legacy.encode(text)) << name;
    ++lines;
  }
  EXPECT_GT(lines, 50u);
  // Where they differ: runs of spaces are split into single "▁" pieces, not "▁▁"-style pieces.
  const std::string spaces = "Runs:    of     spaces  \t\t and\t \n\n\n   tabs";
  EXPECT_NE(old_form.encode(spaces), legacy.encode(spaces));
  j["pre_tokenizer"]["split"] = false;
  EXPECT_EQ(Tokenizer::from_json(j.dump()).encode(spaces), legacy.encode(spaces));
  // add_prefix_space false: no "▁" in front.
  j["pre_tokenizer"]["add_prefix_space"] = false;
  EXPECT_EQ(Tokenizer::from_json(j.dump()).encode("a", false), ids({29874}));
}

TEST(TokenizerMetaspace, DecoderDropsTheFirstTokensReplacementUnlessTheSchemeIsNever) {
  json j = tiny();
  j["model"]["vocab"]["▁ab"] = 9;
  j["model"]["merges"].push_back("▁ ab");
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "always"}, {"split", true}};
  j["decoder"] = {{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "always"}, {"split", true}};
  const Tokenizer t = Tokenizer::from_json(j.dump());
  EXPECT_EQ(t.encode("ab ab"), ids({9, 9}));
  EXPECT_EQ(t.decode(ids({9, 9})), "ab ab");
  j["decoder"]["prepend_scheme"] = "never";
  EXPECT_EQ(Tokenizer::from_json(j.dump()).decode(ids({9, 9})), " ab ab");
}

TEST(TokenizerSplit, Gpt2PatternAsSplitGivesGpt2sIds) {
  json j = json::parse(st::family_files("gpt2").tokenizer_json);
  const json split_step = {
      {"type", "Split"}, {"pattern", {{"Regex", tok::kGpt2Pattern}}}, {"behavior", "Isolated"}, {"invert", false}};
  const json byte_step = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}};
  j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", json::array({split_step, byte_step})}};
  const Tokenizer split = Tokenizer::from_json(j.dump());
  const Tokenizer& gpt2 = st::family_tokenizer("gpt2");
  for (const auto& [name, text] : st::fixture_texts()) EXPECT_EQ(split.encode(text), gpt2.encode(text)) << name;
  // Without the split the whole text is one word: different ids.
  j["pre_tokenizer"]["pretokenizers"].erase(0);
  const std::string& hostile = st::fixture_texts().at("hostile");
  EXPECT_NE(Tokenizer::from_json(j.dump()).encode(hostile), gpt2.encode(hostile));
}

TEST(TokenizerSplit, Behaviours) {
  json j = tiny();
  j["model"]["vocab"]["-"] = 10;
  const auto with = [&](const std::string& behavior, bool invert = false) {
    j["pre_tokenizer"] = {
        {"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", invert}};
    return Tokenizer::from_json(j.dump()).encode("ab-c");
  };
  EXPECT_EQ(with("Isolated"), ids({6, 10, 2}));
  EXPECT_EQ(with("Removed"), ids({6, 2}));
  j["model"]["vocab"]["ab-"] = 11;
  j["model"]["vocab"]["-c"] = 12;
  j["model"]["merges"] = {"a b", "ab -", "- c"};
  EXPECT_EQ(with("MergedWithPrevious"), ids({11, 2}));
  EXPECT_EQ(with("MergedWithNext"), ids({6, 12}));
}

TEST(TokenizerUtf8, InvalidBytesBecomeOneReplacementPerMaximalSubpart) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(tok::to_valid_utf8("a\xF0\x9F\x98" "b"), "a" + r + "b");      // truncated 4-byte sequence: one
  EXPECT_EQ(tok::to_valid_utf8("\xED\xA0\x80"), r + r + r);              // a surrogate: one per byte
  EXPECT_EQ(tok::to_valid_utf8("\xC0\xAF"), r + r);                      // overlong
  EXPECT_EQ(tok::to_valid_utf8("\xE2\x82" "x"), r + "x");
  EXPECT_EQ(tok::to_valid_utf8("\xF4\x90\x80\x80"), r + r + r + r);      // above U+10FFFF
  EXPECT_EQ(tok::to_valid_utf8("\xC3\xA9\xE2\x82\xAC"), "\xC3\xA9\xE2\x82\xAC");
  const Tokenizer& gpt2 = st::family_tokenizer("gpt2");
  EXPECT_EQ(gpt2.encode("a\xF0\x9F\x98" "b"), gpt2.encode("a\xEF\xBF\xBD" "b"));
}

TEST(TokenizerDecode, ByteFallbackRunsThatAreNotUtf8GiveOneReplacementPerByte) {
  const Tokenizer& llama = st::family_tokenizer("llama2");
  const int32_t e2 = *llama.token_to_id("<0xE2>"), x82 = *llama.token_to_id("<0x82>"),
                xac = *llama.token_to_id("<0xAC>");
  EXPECT_EQ(llama.decode(ids({e2, x82, xac})), "\xE2\x82\xAC");
  EXPECT_EQ(llama.decode(ids({e2, x82})), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(llama.decode(ids({1, *llama.token_to_id("▁Hello")}), true), "Hello");  // Strip drops the leading space
}

TEST(TokenizerFamilies, BosEosNamesAndSizesAsTheFilesSay) {
  const Tokenizer& gpt2 = st::family_tokenizer("gpt2");
  EXPECT_EQ(gpt2.description(), "byte-level BPE, 50257 tokens");
  EXPECT_EQ(gpt2.bos_id(), 50256);
  EXPECT_EQ(gpt2.eos_id(), 50256);
  EXPECT_EQ(gpt2.token_to_id("<|endoftext|>"), 50256);
  EXPECT_EQ(gpt2.id_to_token(50256), "<|endoftext|>");
  EXPECT_EQ(gpt2.token_to_id("Ġthe"), 262);
  EXPECT_FALSE(gpt2.token_to_id("no such token"));
  const Tokenizer& llama2 = st::family_tokenizer("llama2");
  EXPECT_EQ(llama2.description(), "SentencePiece-style BPE with byte fallback, 32000 tokens");
  EXPECT_EQ(llama2.bos_id(), 1);
  EXPECT_EQ(llama2.eos_id(), 2);
  EXPECT_EQ(llama2.encode(""), ids({1}));
  EXPECT_TRUE(llama2.encode("", false).empty());
  EXPECT_EQ(llama2.decode(std::vector<int32_t>{}), "");
  const Tokenizer& llama3 = st::family_tokenizer("llama3");
  EXPECT_EQ(llama3.vocab_size(), 128256);
  EXPECT_EQ(llama3.bos_id(), 128000);
  EXPECT_EQ(llama3.eos_id(), 128001);
  const Tokenizer& qwen3 = st::family_tokenizer("qwen3");
  EXPECT_FALSE(qwen3.bos_id());
  EXPECT_EQ(qwen3.eos_id(), qwen3.token_to_id("<|im_end|>"));
  EXPECT_EQ(qwen3.vocab_size(), 151669);
  EXPECT_TRUE(qwen3.encode("").empty());
}

}  // namespace
}  // namespace sinklab
