// Every class of user error the loader reports: unknown keys, wrong types, ranges, enumerations,
// registry names, cross-key rules. Each check pins the file, the line and the key path.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "config_loading/plugin_fields.h"
#include "data/task_registry.h"
#include "data/trigger_conditional_task.h"
#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using testing::contains;
using testing::parse;
using testing::parse_error;
using testing::quoted_owners_of;

TEST(ConfigValidation, UnknownNestedKeySuggestsTheClosestKey) {
  const auto e = parse_error("seed: 1\nmodel:\n  attention:\n    normalizr: relu\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:4: model.attention.normalizr: unknown key; did you mean 'normalizer'?");
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.key(), "model.attention.normalizr");
}

TEST(ConfigValidation, UnknownKeyWithoutCloseMatchListsTheAllowedKeys) {
  const auto e = parse_error("optimizer:\n  lr: 0.1\n  nesterov: true\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.key(), "optimizer.nesterov");
  EXPECT_TRUE(contains(e.what(), "allowed in optimizer: name, lr, beta1")) << e.what();
}

TEST(ConfigValidation, UnknownTopLevelKeyAndTransposedLetters) {
  const auto e = parse_error("sede: 3\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:1: sede: unknown key; did you mean 'seed'?");
  const auto swapped = parse_error("model:\n  layres: 2\n");
  EXPECT_TRUE(contains(swapped.what(), "did you mean 'layers'?")) << swapped.what();
}

TEST(ConfigValidation, WrongScalarTypes) {
  auto e = parse_error("model:\n  heads: two\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:2: model.heads: expected an integer, got 'two'");
  e = parse_error("model:\n  d_model: 16\n  heads: 1.5\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_TRUE(contains(e.what(), "model.heads: expected an integer (no decimal point or exponent), got 1.5"))
      << e.what();
  e = parse_error("optimizer:\n  lr: \"0.1\"\n");
  EXPECT_TRUE(contains(e.what(), "expected a number, got the quoted string \"0.1\"")) << e.what();
  e = parse_error("model:\n  residual: maybe\n");
  EXPECT_TRUE(contains(e.what(), "model.residual: expected true or false, got 'maybe'")) << e.what();
  e = parse_error("optimizer:\n  lr: .inf\n");
  EXPECT_TRUE(contains(e.what(), "expected a number")) << e.what();
  e = parse_error("optimizer:\n  lr: nan\n");
  EXPECT_TRUE(contains(e.what(), "expected a finite number")) << e.what();
  e = parse_error("seed: -1\n");
  EXPECT_TRUE(contains(e.what(), "seed: expected a non-negative integer, got -1")) << e.what();
}

TEST(ConfigValidation, MapsListsAndNullsWhereValuesBelong) {
  auto e = parse_error("threads: 1\noptimizer:\n  lr: {value: 1}\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_TRUE(contains(e.what(), "optimizer.lr: expected a single value (number, > 0), got a map")) << e.what();
  e = parse_error("model:\n  d_model: [16]\n");
  EXPECT_TRUE(contains(e.what(), "got a list")) << e.what();
  e = parse_error("optimizer:\n  lr:\n");
  EXPECT_TRUE(contains(e.what(), "optimizer.lr: expected a single value (number, > 0), got nothing (null)"))
      << e.what();
  e = parse_error("seed: 0\nmodel: 3\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:2: model: expected a map of keys, got '3'");
  e = parse_error("model:\n  attention:\n    normalizer: [relu]\n");
  EXPECT_TRUE(contains(e.what(), "expected a map of keys or a name, got a list")) << e.what();
}

TEST(ConfigValidation, NullSectionKeepsDefaults) {
  const RunConfig c = parse("seed: 5\nmodel:\noptimizer:\n");
  RunConfig expected;
  expected.name = std::string("x");
  expected.seed = 5;
  resolve_plugin_defaults(expected);  // a loaded config lists its plug-ins' options, defaults included
  EXPECT_EQ(c, expected);
}

TEST(ConfigValidation, OutOfRangeValues) {
  auto e = parse_error("optimizer:\n  lr: -1.0e-3\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:2: optimizer.lr: must be > 0, got -1.0e-3");
  e = parse_error("model:\n  heads: 0\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:2: model.heads: must be >= 1, got 0");
  e = parse_error("optimizer:\n  beta1: 1.0\n");
  EXPECT_TRUE(contains(e.what(), "optimizer.beta1: must be [0, 1), got 1.0")) << e.what();
  e = parse_error("analysis:\n  sink_eps: 1\n");
  EXPECT_TRUE(contains(e.what(), "analysis.sink_eps: must be (0, 1), got 1")) << e.what();
  e = parse_error("task:\n  dim: 3\n");
  EXPECT_TRUE(contains(e.what(), "task.dim: must be >= 4, got 3")) << e.what();
  e = parse_error("threads: 99999999999\n");
  EXPECT_TRUE(contains(e.what(), "threads: integer 99999999999 is out of range")) << e.what();
}

// A value float32 rounds to 0 is not the value written: refused, for schema keys and plugin options alike.
TEST(ConfigValidation, NumbersBelowFloat32sRangeAreRefusedNotZeroed) {
  auto e = parse_error("optimizer:\n  lr: 1.0e-50\n");
  EXPECT_EQ(e.key(), "optimizer.lr");
  EXPECT_TRUE(contains(e.what(), "is below float32's range")) << e.what();
  e = parse_error("seed: 1\n", {"model.attention.normalizer={name: softmax_n, n: 1e-320}"});
  EXPECT_TRUE(contains(e.what(), "is below float32's range")) << e.what();
  EXPECT_DOUBLE_EQ(parse("optimizer:\n  lr: 1.0e-40\n").optimizer.lr, 1.0e-40);  // a float32 denormal is a value
}

TEST(ConfigValidation, TemperaturesKeepTheirInverseFiniteInFloat32) {
  auto e = parse_error("model:\n  attention:\n    normalizer: {name: softmax, temperature: 1.0e-300}\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.key(), "model.attention.normalizer.temperature");
  EXPECT_TRUE(contains(e.what(), "must be [1e-20, 1e+20], got 1.0e-300")) << e.what();
  e = parse_error("model:\n  attention:\n    scale: temperature\n    temperature: 1.0e-300\n");
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.key(), "model.attention.temperature");
  e = parse_error("seed: 1\n", {"model.attention.temperature=1e30"});
  EXPECT_EQ(e.key(), "model.attention.temperature");
  for (const char* ok : {"1e-20", "0.5", "1e20"}) {
    EXPECT_EQ(parse("seed: 1\n", {std::string("model.attention.normalizer.temperature=") + ok})
                  .model.attention.normalizer.options.get<double>("temperature"),
              std::stod(ok));
  }
}

TEST(ConfigValidation, SizesHaveUpperBounds) {
  const std::pair<const char*, const char*> too_big[] = {
      {"threads", "257"},          {"model.d_model", "65537"},     {"model.layers", "1025"},
      {"model.heads", "1025"},     {"model.head_dim", "65537"},    {"model.mlp_hidden", "1048577"},
      {"model.vocab_size", "16777217"}, {"task.dim", "65537"},     {"task.seq_len", "65537"},
      {"task.eval_samples", "10000001"}, {"train.batch_size", "1048577"}};
  for (const auto& [key, value] : too_big) {
    const auto e = parse_error("seed: 1\n", {std::string(key) + "=" + value});
    EXPECT_EQ(e.key(), key);
    EXPECT_TRUE(contains(e.detail(), "must be ")) << e.what();
    EXPECT_TRUE(contains(e.detail(), std::string(", got ") + value)) << e.what();
  }
  EXPECT_STREQ(parse_error("threads: 2000\n").what(), "configs/x.yaml:1: threads: must be [1, 256], got 2000");
  EXPECT_EQ(parse("threads: 256\n").threads, 256);
}

TEST(ConfigValidation, EnumerationsListTheAllowedValues) {
  const auto e = parse_error("model:\n  norm: batch_norm\n");
  EXPECT_STREQ(e.what(),
               "configs/x.yaml:2: model.norm: unknown value 'batch_norm'; allowed: none | layer_norm | rms_norm");
  const auto close = parse_error("model:\n  norm: layernorm\n");
  EXPECT_TRUE(contains(close.what(), "; did you mean 'layer_norm'?")) << close.what();
}

TEST(ConfigValidation, HeadDimAcceptsFullSplitOrAPositiveInteger) {
  EXPECT_EQ(parse("model:\n  head_dim: full\n").model.head_dim.mode, HeadDimMode::full);
  const RunConfig split = parse("model:\n  d_model: 16\n  heads: 4\n  head_dim: split\n");
  EXPECT_EQ(resolved_head_dim(split.model), 4);
  const RunConfig fixed = parse("model:\n  heads: 2\n  head_dim: 6\n");
  EXPECT_EQ(fixed.model.head_dim, (HeadDim{HeadDimMode::fixed, 6}));
  EXPECT_EQ(resolved_head_dim(fixed.model), 6);
  EXPECT_TRUE(contains(parse_error("model:\n  head_dim: 0\n").what(), "must be full, split or >= 1, got 0"));
  EXPECT_TRUE(contains(parse_error("model:\n  head_dim: half\n").what(),
                       "expected full, split or a positive integer, got 'half'"));
}

TEST(ConfigValidation, UnknownNormalizerAndTaskNamesListTheRegistry) {
  auto e = parse_error("model:\n  attention:\n    normalizer: sofmax\n");
  EXPECT_STREQ(e.what(),
               "configs/x.yaml:3: model.attention.normalizer.name: unknown normalizer 'sofmax'; known: softmax, "
               "relu; did you mean 'softmax'?");
  e = parse_error("task:\n  name: copy\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:2: task.name: unknown task 'copy'; known: trigger_conditional");
}

TEST(ConfigValidation, EmptyVocabularySkipsRegistryChecks) {
  const RunConfig c = parse_run_config("model:\n  attention:\n    normalizer: sigmoid\n", "x.yaml", {}, {});
  EXPECT_EQ(c.model.attention.normalizer.name, "sigmoid");
}

TEST(ConfigValidation, NormalizerMapFormAndOptionsThatDoNotBelong) {
  const RunConfig relu = parse("model:\n  attention:\n    normalizer: {name: relu, divisor: seq_len}\n");
  EXPECT_EQ(relu.model.attention.normalizer.name, "relu");
  EXPECT_EQ(relu.model.attention.normalizer.options.get<std::string>("divisor"), "seq_len");
  auto e = parse_error("model:\n  attention:\n    normalizer:\n      name: softmax\n      divisor: visible\n");
  EXPECT_STREQ(e.what(), ("configs/x.yaml:5: model.attention.normalizer.divisor: is an option of normalizers " +
                          quoted_owners_of("divisor") + " only, but the normalizer is 'softmax'")
                             .c_str());
  e = parse_error("model:\n  attention:\n    normalizer:\n      temperature: 2.0\n      name: relu\n");
  EXPECT_EQ(e.line(), 4);
  EXPECT_TRUE(contains(e.what(), "option of normalizer 'softmax' only, but the normalizer is 'relu'")) << e.what();
}

TEST(ConfigValidation, DuplicateKey) {
  const auto e = parse_error("seed: 1\nthreads: 1\nseed: 2\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:3: seed: duplicate key (set twice in the same map)");
}

TEST(ConfigValidation, CrossKeyRulesPointAtTheKeyTheUserWrote) {
  auto e = parse_error("model:\n  d_model: 16\n  heads: 3\n  head_dim: split\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.key(), "model.heads");
  EXPECT_TRUE(contains(e.what(), "3 heads do not divide d_model 16")) << e.what();
  e = parse_error("model:\n  positional: learned\ntask:\n  eval_seq_len: 32\n");
  EXPECT_EQ(e.key(), "task.eval_seq_len");
  EXPECT_TRUE(contains(e.what(), "cannot be evaluated at 32")) << e.what();
  e = parse_error("task:\n  eval_seq_len: 2\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.what(), "cannot be evaluated at length 2: seq_len must be >= 3")) << e.what();
  e = parse_error("model:\n  d_model: 32\n  output_head: true\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.what(), "d_model (32) must equal task.dim (16)")) << e.what();
  e = parse_error("model:\n  d_model: 32\n  input_projection: true\n");
  EXPECT_TRUE(contains(e.what(), "set model.output_head: true")) << e.what();
  e = parse_error("model:\n  positional: rope\n  d_model: 15\n  input_projection: true\n  output_head: true\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(contains(e.what(), "even head width, but the head width is 15")) << e.what();
  e = parse_error("model:\n  input: tokens\n");
  EXPECT_TRUE(contains(e.what(), "vocab_size >= 1")) << e.what();
  e = parse_error("optimizer:\n  name: adam\n  momentum: 0.9\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_TRUE(contains(e.what(), "momentum is an sgd setting")) << e.what();
  EXPECT_EQ(parse("optimizer:\n  name: sgd\n  momentum: 0.9\n").optimizer.momentum, 0.9);
  e = parse_error("optimizer:\n  schedule: cosine\n  lr: 1.0e-4\n  min_lr: 1.0e-3\n");
  EXPECT_EQ(e.key(), "optimizer.min_lr");
  e = parse_error("optimizer:\n  schedule: cosine\n  warmup_steps: 10\ntrain:\n  max_steps: 10\n");
  EXPECT_EQ(e.key(), "optimizer.warmup_steps");
  // Set but never read by the schedule or the scale: refused, not ignored (their defaults pass, so a
  // run folder's config.yaml, which writes every key, still loads).
  e = parse_error("optimizer:\n  warmup_steps: 100\n");
  EXPECT_EQ(e.key(), "optimizer.warmup_steps");
  EXPECT_TRUE(contains(e.what(), "schedule: constant ignores it")) << e.what();
  e = parse_error("optimizer:\n  schedule: warmup\n  min_lr: 1.0e-5\n");
  EXPECT_EQ(e.key(), "optimizer.min_lr");
  EXPECT_TRUE(contains(e.what(), "schedule: warmup ignores it")) << e.what();
  e = parse_error("model:\n  attention:\n    temperature: 0.5\n");
  EXPECT_EQ(e.key(), "model.attention.temperature");
  EXPECT_TRUE(contains(e.what(), "ignores it")) << e.what();
  EXPECT_EQ(parse("optimizer:\n  schedule: constant\n  warmup_steps: 0\n  min_lr: 0\n").optimizer.warmup_steps, 0);
  e = parse_error("task:\n  eval_samples: 10\n");
  EXPECT_EQ(e.key(), "task.eval_samples");
  EXPECT_TRUE(contains(e.what(), "analysis.eval_attention_samples (1000) must be at most task.eval_samples (10)"))
      << e.what();
}

TEST(ConfigValidation, SnapshotKeys) {
  ConfigError e = parse_error("analysis:\n  snapshot_limit: 1\n");
  EXPECT_EQ(e.key(), "analysis.snapshot_limit");
  EXPECT_TRUE(contains(e.what(), "must be 0 (never thin) or at least 2")) << e.what();
  e = parse_error("task:\n  eval_samples: 40\nanalysis:\n  eval_attention_samples: 40\n  snapshot_samples: 50\n");
  EXPECT_TRUE(contains(e.what(), "analysis.snapshot_samples (50) must be at most task.eval_samples (40)")) << e.what();
  // Unset, the default shrinks to the batch and to the evaluation set instead of failing.
  EXPECT_EQ(parse("task:\n  eval_samples: 40\nanalysis:\n  eval_attention_samples: 40\n").analysis.snapshot_samples,
            40);
  EXPECT_EQ(parse("train:\n  batch_size: 32\n").analysis.snapshot_samples, 32);
  EXPECT_EQ(parse("seed: 1\n").analysis.snapshot_samples, 128);
}

TEST(ConfigValidation, TriggerBounds) {
  auto e = parse_error("task:\n  seq_len: 16\n  trigger_max: 16\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_TRUE(contains(e.what(), "trigger_min <= trigger_max <= seq_len - 1")) << e.what();
  e = parse_error("task:\n  trigger_min: 9\n  trigger_max: 8\n");
  EXPECT_EQ(e.key(), "task.trigger_max");
  e = parse_error("task:\n  trigger_max: 0\n");
  EXPECT_EQ(e.key(), "task.trigger_max");
  e = parse_error("task:\n  trigger_min: 0\n");
  EXPECT_TRUE(contains(e.what(), "task.trigger_min: must be >= 1, got 0")) << e.what();
  e = parse_error("task:\n  seq_len: 6\n  eval_trigger: 6\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_TRUE(contains(e.what(), "must be in 1 .. seq_len - 1 = 5, got 6")) << e.what();
  const RunConfig ok = parse("task:\n  seq_len: 8\n  trigger_min: 1\n  trigger_max: -1\n  eval_trigger: 7\n");
  EXPECT_EQ(dynamic_cast<const TriggerConditionalTask&>(*make_task(ok.task, false)).trigger_max(), 7);
}

TEST(ConfigValidation, DocumentLevelProblems) {
  auto e = parse_error("model:\n  heads: [1, 2\nseed: 3\n");
  EXPECT_TRUE(contains(e.what(), "configs/x.yaml:3: YAML syntax error: ")) << e.what();
  EXPECT_EQ(e.line(), 3);
  e = parse_error("");
  EXPECT_STREQ(e.what(), "configs/x.yaml: the file is empty (no keys)");
  e = parse_error("# only a comment\n\n");
  EXPECT_EQ(e.detail(), "the file is empty (no keys)");
  e = parse_error("- seed: 1\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:1: the top level must be a map of keys (key: value), got a list");
  e = parse_error("just words\n");
  EXPECT_TRUE(contains(e.what(), "the top level must be a map of keys (key: value), got 'just words'")) << e.what();
  // A second document used to be dropped without a word; bare-CR line endings read as "empty".
  e = parse_error("seed: 1\n---\nseed: 2\n");
  EXPECT_STREQ(e.what(), "configs/x.yaml:2: a second YAML document starts here; a config is one document");
  EXPECT_EQ(parse("---\nseed: 4\n...\n# the end\n").seed, 4u);  // explicit markers around one document
  e = parse_error("seed: 1\n...\nseed: 2\n");
  EXPECT_EQ(e.line(), 3);
  e = parse_error("seed: 1\nmodel: " + std::string(3000, '[') + std::string(3000, ']') + "\n");
  EXPECT_TRUE(contains(e.what(), "YAML nested deeper than")) << e.what();
  EXPECT_EQ(e.line(), 2);
  e = parse_error("seed: 1\rmodel:\r  layers: 2\r");
  EXPECT_TRUE(contains(e.what(), "bare carriage return")) << e.what();
  EXPECT_EQ(parse("seed: 1\r\nmodel:\r\n  layers: 2\r\n").model.layers, 2);  // CRLF is fine
}

TEST(ConfigValidation, NameDefaultsToTheFileStem) {
  EXPECT_EQ(parse_run_config("seed: 1\n", "some/dir/my_run.yaml", {}, testing::test_vocab()).name, "my_run");
  EXPECT_EQ(parse("name: custom\n").name, "custom");
}

}  // namespace
}  // namespace sinklab

namespace sinklab {
namespace {

std::string load_error(const std::filesystem::path& file) {
  try {
    load_run_config(file, {}, testing::test_vocab());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigFile, DevicesAndHugeFilesAreRefusedWithoutBeingRead) {
  EXPECT_TRUE(
      testing::contains(load_error("/dev/zero"), "/dev/zero: cannot read the config file: is not a regular file"))
      << load_error("/dev/zero");
  const std::filesystem::path big =
      std::filesystem::temp_directory_path() / ("sinklab-big-config-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(big) << "# " << std::string(2 << 20, 'x') << "\n";
  EXPECT_TRUE(testing::contains(load_error(big), "bytes, more than the 1048576")) << load_error(big);
  std::filesystem::remove(big);
}

}  // namespace
}  // namespace sinklab
