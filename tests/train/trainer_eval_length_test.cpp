// task.eval_seq_len: the trainer evaluates on a set of another length without touching training.
#include <gtest/gtest.h>

#include <algorithm>

#include "config_loading/config_loader.h"
#include "core/observe/attention_observer.h"
#include "data/eval_set.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "models/evaluation.h"
#include "models/model.h"
#include "models/model_loader.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

RunConfig small_config() {
  const ConfigVocabulary vocab = registered_vocabulary();
  return parse_run_config("model: {layers: 1, heads: 2, residual: true}\noptimizer: {lr: 3.0e-3}\n"
                          "train: {batch_size: 32, max_steps: 60, log_every: 10, eval_every: 20}\n"
                          "task: {eval_samples: 64}\nanalysis: {eval_attention_samples: 64}\n",
                          "test.yaml", {}, vocab);
}

// task.eval_seq_len changes the evaluation set only: the same training bits, and the summary's numbers
// are the trained model's on a set of the longer length, drawn as any length-32 evaluation set.
TEST(Trainer, EvaluationAtAnotherLengthLeavesTrainingAlone) {
  RunConfig a = small_config();
  RunConfig b = a;
  b.task.eval_seq_len = 32;
  TrainOptions quiet;
  quiet.quiet = true;
  Trainer ta(a), tb(b);
  const RunSummary sa = ta.run(quiet), sb = tb.run(quiet);
  ASSERT_EQ(ta.parameters().values().size(), tb.parameters().values().size());
  EXPECT_TRUE(std::equal(ta.parameters().values().begin(), ta.parameters().values().end(),
                         tb.parameters().values().begin()));
  EXPECT_EQ(sa.seq_len, 16);
  EXPECT_EQ(sb.seq_len, 32);
  ASSERT_FALSE(sb.heads.empty());
  EXPECT_EQ(sb.heads[0].bos_mass_by_row.size(), 32u);

  const auto task32 = make_task(task_config_at_length(a.task, 32), a.model.residual);
  const EvalSet set(*task32, a.task.eval_samples, a.task.eval_seed);
  Model longer(b, model_shape_of(b));
  std::copy(ta.parameters().values().begin(), ta.parameters().values().end(), longer.parameters().values().begin());
  // Observed like the trainer's evaluation (analysis.eval_attention_samples covers the whole set), so
  // both take the materialized attention; an unobserved pass would take the fused short-row path,
  // whose sums match it only up to rounding in builds without FMA contraction (the sanitizer build).
  struct Watching final : AttentionObserver {
    void on_attention(const AttentionView&) override {}
  } watching;
  AttentionObserver* const observers[] = {&watching};
  EvalOptions options;
  options.attention_samples = a.analysis.eval_attention_samples;
  Graph g;
  const EvalMetrics m =
      evaluate_model(g, longer.transformer(), TaskObjective(task32->shape()), set, observers, options);
  EXPECT_EQ(m.mse, sb.eval_mse);
  EXPECT_EQ(m.max_abs_error, sb.eval_max_abs_error);
  EXPECT_NE(sa.eval_mse, sb.eval_mse);
}

}  // namespace
}  // namespace sinklab
