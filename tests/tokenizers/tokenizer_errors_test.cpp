// Every way a user can get a tokenizer wrong gets one TokenizerError that names the file and what is
// wrong in it: missing files and folders, bad JSON, truncated files, unsupported component types,
// merges naming unknown tokens, inconsistent added tokens, ids out of range.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/tokenizers/tokenizer_fixtures.h"

namespace sinklab {
namespace {

namespace st = sinklab::testing;
using nlohmann::json;

// The message of the TokenizerError that `f` throws ("" when it throws none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const TokenizerError& e) {
    return e.what();
  }
  return "";
}

json small() {
  return {{"added_tokens", json::array({{{"id", 3}, {"content", "<s>"}, {"special", true}}})},
          {"normalizer", nullptr}, {"pre_tokenizer", nullptr}, {"post_processor", nullptr}, {"decoder", nullptr},
          {"model", {{"type", "BPE"}, {"vocab", {{"a", 0}, {"b", 1}, {"ab", 2}}}, {"merges", {"a b"}}}}};
}

std::string load_error(const json& j) {
  return error_of([&] { Tokenizer::from_json(j.dump(), "", "my/tokenizer.json"); });
}

TEST(TokenizerErrors, TheSmallFileLoads) {
  EXPECT_EQ(load_error(small()), "");
  EXPECT_EQ(Tokenizer::from_json(small().dump()).encode("ab<s>"), (std::vector<int32_t>{2, 3}));
}

TEST(TokenizerErrors, TruncatedOrNotJson) {
  const std::string& text = st::family_files("gpt2").tokenizer_json;
  const std::string e =
      error_of([&] { Tokenizer::from_json(text.substr(0, text.size() / 2), "", "gpt2/tokenizer.json"); });
  EXPECT_NE(e.find("gpt2/tokenizer.json: not valid JSON"), std::string::npos) << e;
  EXPECT_NE(error_of([] { Tokenizer::from_json("", "", "x.json"); }).find("x.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of([] { Tokenizer::from_json("[1, 2]", "", "x.json"); }).find("x.json: expected a JSON object"),
            std::string::npos);
  EXPECT_NE(error_of([] { Tokenizer::from_json("{\"model\": 1e999}", "", "x.json"); }).find("x.json: not valid JSON"),
            std::string::npos);
}

TEST(TokenizerErrors, UnsupportedComponentsAreNamedWithTheirPath) {
  json j = small();
  j["model"]["type"] = "WordPiece";
  EXPECT_EQ(load_error(j), "my/tokenizer.json: model.type: model \"WordPiece\" is not supported (supported: BPE)");
  j = small();
  j["normalizer"] = {{"type", "Sequence"}, {"normalizers", json::array({{{"type", "NFC"}}, {{"type", "Lowercase"}}})}};
  EXPECT_NE(load_error(j).find(
                "my/tokenizer.json: normalizer.normalizers[1].type: normalizer \"Lowercase\" is not supported"),
            std::string::npos);
  j = small();
  j["pre_tokenizer"] = {{"type", "Whitespace"}};
  EXPECT_NE(load_error(j).find("pre_tokenizer.type: pre-tokenizer \"Whitespace\" is not supported"), std::string::npos);
  j = small();
  j["decoder"] = {{"type", "WordPiece"}};
  EXPECT_NE(load_error(j).find("decoder.type: decoder \"WordPiece\""), std::string::npos);
  j = small();
  j["post_processor"] = {{"type", "Magic"}};
  EXPECT_NE(load_error(j).find("post_processor.type: post-processor \"Magic\""), std::string::npos);
  j = small();
  json nested = {{"type", "NFC"}};
  for (int i = 0; i < 40; ++i) nested = {{"type", "Sequence"}, {"normalizers", json::array({nested})}};
  j["normalizer"] = nested;
  EXPECT_NE(load_error(j).find("Sequences nested deeper than 32"), std::string::npos);
  j = small();
  j["model"]["dropout"] = 0.1;
  EXPECT_NE(load_error(j).find("model.dropout"), std::string::npos);
  j = small();
  j["truncation"] = {{"max_length", 10}};
  EXPECT_NE(load_error(j).find("truncation: is not supported"), std::string::npos);
  j = small();
  j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}};
  EXPECT_NE(load_error(j).find("pre_tokenizer.pattern.Regex: invalid regular expression"), std::string::npos)
      << load_error(j);
}

TEST(TokenizerErrors, MissingOrBrokenMerges) {
  json j = small();
  j["model"].erase("merges");
  EXPECT_EQ(load_error(j), "my/tokenizer.json: model: missing key \"merges\"");
  j = small();
  j["model"]["merges"] = {"a b", "b zz"};
  EXPECT_EQ(load_error(j), "my/tokenizer.json: model.merges[1]: token \"zz\" is not in the vocabulary");
  j = small();
  j["model"]["merges"] = {"b a"};  // "ba" is not in the vocabulary
  EXPECT_EQ(load_error(j), "my/tokenizer.json: model.merges[0]: token \"ba\" is not in the vocabulary");
  j = small();
  j["model"]["merges"] = {"ab"};
  EXPECT_NE(load_error(j).find("model.merges[0]: expected two tokens"), std::string::npos);
  j = small();
  j["model"]["merges"] = json::array({json::array({"a", 5})});
  EXPECT_NE(load_error(j).find("model.merges[0][1]: expected a string"), std::string::npos);
  j = small();
  j["model"]["vocab"]["b"] = -1;
  EXPECT_NE(load_error(j).find("model.vocab[\"b\"]: value -1 is out of range"), std::string::npos);
  j = small();
  j["model"]["vocab"]["b"] = 0;
  EXPECT_NE(load_error(j).find("is given to two tokens"), std::string::npos);
  j = small();
  j["model"]["unk_token"] = "<unk>";
  EXPECT_NE(load_error(j).find("model.unk_token: token \"<unk>\" is not in the vocabulary"), std::string::npos);
}

TEST(TokenizerErrors, InconsistentAddedTokensAndTemplates) {
  json j = small();
  j["added_tokens"][0]["id"] = 1;
  EXPECT_NE(load_error(j).find("added_tokens[0].id: id 1 is \"b\" in the vocabulary"), std::string::npos)
      << load_error(j);
  j = small();
  j["added_tokens"].push_back({{"id", 4}, {"content", "<s>"}});
  EXPECT_NE(load_error(j).find("added_tokens[1]: \"<s>\" is listed twice"), std::string::npos);
  j = small();
  j["post_processor"] = {{"type", "TemplateProcessing"},
                         {"single", json::array({{{"SpecialToken", {{"id", "<bos>"}, {"type_id", 0}}}},
                                                 {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}})},
                         {"special_tokens", json::object()}};
  EXPECT_NE(load_error(j).find("post_processor.single[0].SpecialToken.id: \"<bos>\" is not in special_tokens"),
            std::string::npos);
  const std::string config = json{{"add_bos_token", true}, {"bos_token", "<nope>"}}.dump();
  const std::string e = error_of([&] { Tokenizer::from_json(small().dump(), config); });
  EXPECT_NE(e.find("tokenizer_config.json: bos_token: \"<nope>\" is not a token"), std::string::npos) << e;
  EXPECT_NE(
      error_of([&] { Tokenizer::from_json(small().dump(), "{oops"); }).find("tokenizer_config.json: not valid JSON"),
      std::string::npos);
}

TEST(TokenizerErrors, IdsOutOfRange) {
  const Tokenizer& gpt2 = st::family_tokenizer("gpt2");
  EXPECT_EQ(error_of([&] { gpt2.decode(std::vector<int32_t>{464, 50257}); }),
            "gpt2/tokenizer.json: decode: id 50257 is not a token (vocabulary size 50257)");
  EXPECT_NE(error_of([&] { gpt2.decode(std::vector<int32_t>{-1}); }).find("id -1"), std::string::npos);
  EXPECT_NE(error_of([&] { gpt2.id_to_token(1 << 30); }).find("gpt2/tokenizer.json: id_to_token: id 1073741824"),
            std::string::npos);
}

TEST(TokenizerErrors, PathsAreCheckedAndNamed) {
  const auto dir = st::fresh_test_dir();
  EXPECT_EQ(error_of([&] { Tokenizer::from_path(dir / "absent"); }),
            (dir / "absent").string() + ": no such file or folder");
  EXPECT_EQ(error_of([&] { Tokenizer::from_path(dir); }), dir.string() + ": no tokenizer.json in this folder");
  std::filesystem::create_directories(dir / "d" / "tokenizer.json");
  EXPECT_NE(error_of([&] { Tokenizer::from_path(dir / "d"); }).find("is a directory"), std::string::npos);
  st::write_text(dir / "bad" / "tokenizer.json", "{\"model\": ");
  EXPECT_NE(error_of([&] {
              Tokenizer::from_path(dir / "bad");
            }).find((dir / "bad" / "tokenizer.json").string() + ": not valid JSON"),
            std::string::npos);
  // A model folder, and the file itself, load as the fixture does (tokenizer_config.json beside it read).
  const st::FamilyFiles& files = st::family_files("llama2");
  st::write_text(dir / "llama" / "tokenizer.json", files.tokenizer_json);
  st::write_text(dir / "llama" / "tokenizer_config.json", files.config_json);
  const Tokenizer folder = Tokenizer::from_path(dir / "llama");
  const Tokenizer file = Tokenizer::from_path(dir / "llama" / "tokenizer.json");
  const std::string text = st::fixture_texts().at("hostile");
  EXPECT_EQ(folder.encode(text), st::family_tokenizer("llama2").encode(text));
  EXPECT_EQ(file.encode(text), folder.encode(text));
  EXPECT_EQ(folder.bos_id(), 1);
  st::write_text(dir / "llama" / "tokenizer_config.json", "not json");
  EXPECT_NE(error_of([&] {
              Tokenizer::from_path(dir / "llama");
            }).find((dir / "llama" / "tokenizer_config.json").string() + ": not valid JSON"),
            std::string::npos);
}

}  // namespace
}  // namespace sinklab
