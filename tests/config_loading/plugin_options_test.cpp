// Config keys generated from plug-in registrations: a task's and a normalizer's options parse,
// range-check, resolve to their defaults, belong only with the plug-ins that declare them, and the
// model is checked against the task's shape (token ids vs vectors, vocabulary, output width).
#include <gtest/gtest.h>

#include "config_loading/config_schema.h"
#include "config_loading/config_writer.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using testing::contains;
using testing::quoted_owners_of;

const ConfigVocabulary& registered() {
  static const ConfigVocabulary vocab = registered_vocabulary();
  return vocab;
}

RunConfig load(const std::string& yaml) { return parse_run_config(yaml, "configs/x.yaml", {}, registered()); }

ConfigError load_error(const std::string& yaml) {
  try {
    load(yaml);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError for:\n" << yaml;
  return ConfigError("", 0, "", "");
}

const std::string kCopy =
    "model: {d_model: 16, input: tokens, vocab_size: 10, output_head: true, positional: learned, residual: true}\n"
    "task: {name: copy, vocab_size: 10, offset: 3, seq_len: 8}\n";

TEST(PluginOptions, TaskOptionsParseAndResolveDefaults) {
  const RunConfig c = load(kCopy);
  EXPECT_EQ(c.task.options.get<int64_t>("offset"), 3);
  EXPECT_EQ(c.task.options.get<int64_t>("vocab_size"), 10);
  const RunConfig d =
      load("model: {d_model: 16, input: tokens, vocab_size: 16, output_head: true}\ntask: {name: copy}\n");
  EXPECT_EQ(d.task.options.get<int64_t>("offset"), 4);  // the declared default, written into the resolved config
  EXPECT_TRUE(contains(to_yaml(d), "offset: 4"));
  EXPECT_FALSE(contains(to_yaml(d), "trigger_min")) << "another task's option is not written";
}

TEST(PluginOptions, OptionsOfAnotherPluginAreRefusedByName) {
  auto e = load_error("task: {offset: 2}\n");
  EXPECT_EQ(e.key(), "task.offset");
  EXPECT_TRUE(contains(e.what(), "is an option of task 'copy' only, but the task is 'trigger_conditional'"))
      << e.what();
  e = load_error("model: {input: tokens, vocab_size: 10, output_head: true}\n"
                 "task: {name: copy, vocab_size: 10, trigger_min: 3}\n");
  EXPECT_EQ(e.key(), "task.trigger_min");
  EXPECT_TRUE(contains(e.what(), "option of task 'trigger_conditional' only")) << e.what();
}

TEST(PluginOptions, RangesAndChoicesComeFromTheDeclaration) {
  auto e = load_error("task: {name: copy, offset: 0}\n");
  EXPECT_EQ(e.key(), "task.offset");
  EXPECT_TRUE(contains(e.what(), "must be >= 1, got 0")) << e.what();
  e = load_error("model:\n  attention:\n    normalizer: {name: relu2, divisor: visble}\n");
  EXPECT_EQ(e.key(), "model.attention.normalizer.divisor");
  EXPECT_TRUE(contains(e.what(), "did you mean 'visible'?")) << e.what();
  const RunConfig relu2 = load("model:\n  attention:\n    normalizer: {name: relu2, divisor: seq_len}\n");
  EXPECT_EQ(relu2.model.attention.normalizer.options.get<std::string>("divisor"), "seq_len");
}

TEST(PluginOptions, TaskErrorsNameTheKeysTheUserSet) {
  auto e = load_error("model: {input: tokens, vocab_size: 10, output_head: true}\n"
                      "task: {name: copy, vocab_size: 10, seq_len: 5, offset: 4}\n");
  EXPECT_EQ(e.key(), "task.offset");
  EXPECT_TRUE(contains(e.what(), "offset must be in 1 .. seq_len - 2")) << e.what();
}

TEST(PluginOptions, ModelIsCheckedAgainstTheTaskShape) {
  auto e = load_error("task: {name: copy}\n");
  EXPECT_EQ(e.key(), "task.name");
  EXPECT_TRUE(contains(e.what(), "the copy task produces token ids; use input: tokens")) << e.what();
  e = load_error("model: {input: tokens, vocab_size: 12, output_head: true}\ntask: {name: copy, vocab_size: 10}\n");
  EXPECT_EQ(e.key(), "model.vocab_size");
  EXPECT_TRUE(contains(e.what(), "model.vocab_size must equal task.vocab_size (10), got 12")) << e.what();
  e = load_error("model: {d_model: 16, input: tokens, vocab_size: 10}\ntask: {name: copy, vocab_size: 10}\n");
  EXPECT_EQ(e.key(), "model.d_model");
  EXPECT_TRUE(contains(e.what(), "target width is task.vocab_size (10)")) << e.what();
}

TEST(PluginOptions, SharedKeysShareOneDeclaration) {
  const FieldSpec* divisor = find_field("model.attention.normalizer.divisor");
  ASSERT_NE(divisor, nullptr);
  EXPECT_TRUE(contains(divisor->doc, "(" + quoted_owners_of("divisor", "") + " only)")) << divisor->doc;
  for (const auto& r : normalizer_registry().registrations())
    for (const auto& option : r.options)
      EXPECT_NE(find_field("model.attention.normalizer." + option.key), nullptr) << r.name << "." << option.key;
  for (const auto& r : task_registrations())
    for (const auto& option : r.options)
      EXPECT_NE(find_field("task." + option.key), nullptr) << r.name << "." << option.key;
}

// A text option (OptionKind::text) is any string, read back as written; code handing a plug-in
// another type is a bug the value check names.
TEST(PluginOptions, TextOptionsKeepTheirText) {
  const std::vector<OptionSpec> specs = {OptionSpec::text("word", "", "a word")};
  EXPECT_EQ(specs[0].type_text(), "text");
  EXPECT_EQ(specs[0].allowed(), "any text");
  OptionValues values;
  EXPECT_EQ(PluginOptions(specs, values).text("word"), "");
  values.set("word", std::string(" : #"));
  EXPECT_NO_THROW(check_option_values(specs, values, "test"));
  EXPECT_EQ(PluginOptions(specs, values).text("word"), " : #");
  values.set("word", int64_t{3});
  EXPECT_THROW(check_option_values(specs, values, "test"), std::logic_error);
}

}  // namespace
}  // namespace sinklab
