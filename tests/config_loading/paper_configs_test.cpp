// The shipped configs load and carry the paper's values; docs/config.md embeds the current key table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config_loading/config_schema.h"
#include "data/task_registry.h"
#include "data/trigger_conditional_task.h"
#include "tests/config_loading/config_test_util.h"
#include "tests/support/docs_embed.h"

namespace sinklab {
namespace {

const std::filesystem::path kSource = SINKLAB_SOURCE_DIR;

RunConfig load(const std::string& relative) {
  return load_run_config(kSource / relative, {}, testing::test_vocab());
}

struct PaperRun {
  const char* file;
  int layers_and_heads;
  const char* normalizer;
};

class PaperConfig : public ::testing::TestWithParam<PaperRun> {};

TEST_P(PaperConfig, HasThePapersValues) {
  const PaperRun run = GetParam();
  const RunConfig c = load(std::string("configs/paper/") + run.file);
  const bool single = run.layers_and_heads == 1;
  EXPECT_EQ(c.name, std::filesystem::path(run.file).stem().string());
  // Model (section 3).
  EXPECT_EQ(c.model.d_model, 16);
  EXPECT_EQ(c.model.layers, run.layers_and_heads);
  EXPECT_EQ(c.model.heads, run.layers_and_heads);
  EXPECT_EQ(resolved_head_dim(c.model), 16);  // full-width heads
  EXPECT_EQ(c.model.residual, !single);
  EXPECT_EQ(c.model.norm, NormKind::none);
  EXPECT_EQ(c.model.mlp_hidden, 0);
  EXPECT_FALSE(c.model.bias);
  EXPECT_EQ(c.model.init, InitKind::normal);
  EXPECT_EQ(c.model.init_std, 0.02);
  EXPECT_EQ(c.model.positional, Positional::none);
  EXPECT_EQ(c.model.input, InputKind::vectors);
  EXPECT_FALSE(c.model.input_projection);
  EXPECT_FALSE(c.model.output_head);
  EXPECT_EQ(c.model.attention.scale, ScaleKind::none);
  EXPECT_EQ(c.model.attention.normalizer.name, run.normalizer);
  if (std::string(run.normalizer) == "relu") {
    EXPECT_EQ(c.model.attention.normalizer.options.get<std::string>("divisor"), "visible_non_bos");
  }
  // Task (section 2).
  EXPECT_EQ(c.task.name, "trigger_conditional");
  EXPECT_EQ(c.task.options.get<int64_t>("dim"), 16);
  EXPECT_EQ(c.task.seq_len, 16);
  const auto task = make_task(c.task, c.model.residual);
  const auto& trigger_task = dynamic_cast<const TriggerConditionalTask&>(*task);
  EXPECT_EQ(trigger_task.trigger_min(), 2);
  EXPECT_EQ(trigger_task.trigger_max(), 15);
  EXPECT_EQ(trigger_task.eval_trigger(), 7);
  EXPECT_EQ(trigger_task.residual_target(), !single);
  // Training (section 4).
  EXPECT_EQ(c.optimizer.name, OptimizerKind::adam);
  EXPECT_EQ(c.optimizer.lr, single ? 1e-3 : 1e-4);
  EXPECT_EQ(c.optimizer.beta1, 0.9);
  EXPECT_EQ(c.optimizer.beta2, 0.95);
  EXPECT_EQ(c.optimizer.eps, 1e-8);
  EXPECT_EQ(c.optimizer.weight_decay, 0.0);
  EXPECT_EQ(c.optimizer.schedule, ScheduleKind::constant);
  EXPECT_EQ(c.optimizer.clip_grad_norm, 0.0);
  EXPECT_EQ(c.train.batch_size, 128);
  EXPECT_EQ(c.train.max_steps, 50000);
  EXPECT_EQ(c.train.stop_max_abs_error, 5e-3);
  // And the resolved form reloads to the same config.
  EXPECT_EQ(parse_run_config(to_yaml(c), "resolved.yaml", {}, testing::test_vocab()), c);
}

INSTANTIATE_TEST_SUITE_P(SixRuns, PaperConfig,
                         ::testing::Values(PaperRun{"1x1_softmax.yaml", 1, "softmax"},
                                           PaperRun{"1x1_relu.yaml", 1, "relu"},
                                           PaperRun{"2x2_softmax.yaml", 2, "softmax"},
                                           PaperRun{"2x2_relu.yaml", 2, "relu"},
                                           PaperRun{"4x4_softmax.yaml", 4, "softmax"},
                                           PaperRun{"4x4_relu.yaml", 4, "relu"}));

TEST(ExampleConfig, TinyBlockIsAConventionalPreLnModel) {
  const RunConfig c = load("configs/examples/tiny_block.yaml");
  EXPECT_EQ(c.model.d_model, 32);
  EXPECT_EQ(c.model.layers, 2);
  EXPECT_EQ(c.model.heads, 4);
  EXPECT_EQ(resolved_head_dim(c.model), 8);
  EXPECT_EQ(c.model.attention.scale, ScaleKind::inv_sqrt_head_dim);
  EXPECT_EQ(c.model.norm, NormKind::layer_norm);
  EXPECT_EQ(c.model.mlp_hidden, 64);
  EXPECT_TRUE(c.model.bias);
  EXPECT_TRUE(c.model.residual);
  EXPECT_TRUE(c.model.input_projection);
  EXPECT_TRUE(c.model.output_head);
  EXPECT_EQ(c.task.options.get<int64_t>("dim"), 16);
}

TEST(ConfigFiles, MissingFileAndDirectory) {
  try {
    load("configs/paper/no_such.yaml");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.source(), (kSource / "configs/paper/no_such.yaml").string());
    EXPECT_TRUE(testing::contains(e.what(), "no_such.yaml: cannot read the config file: no such file")) << e.what();
  }
  try {
    load("configs/paper");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(testing::contains(e.what(), "it is a directory")) << e.what();
  }
}

TEST(ConfigFiles, OverridesApplyToALoadedFile) {
  const RunConfig c =
      load_run_config(kSource / "configs/paper/2x2_relu.yaml", {"optimizer.lr=3e-4", "seed=4"}, testing::test_vocab());
  EXPECT_EQ(c.optimizer.lr, 3e-4);
  EXPECT_EQ(c.seed, 4u);
  EXPECT_EQ(c.name, "2x2_relu");
}

TEST(ConfigDocs, DocsEmbedTheCurrentKeyTable) {
  testing::expect_docs_embed("docs/config.md", config_reference_markdown(), "config_reference.md");
}

}  // namespace
}  // namespace sinklab
