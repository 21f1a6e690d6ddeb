// Each cadence key means what docs/config.md says, whatever the others are: evaluations exactly every
// eval_every steps (also on steps log_every does not log), metrics lines every log_every steps (plus
// the evaluating ones), checkpoints after every checkpoint_every steps.
#include "train/step_cadence.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "config_loading/config_loader.h"
#include "run_files/run_summary.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

std::set<int64_t> steps_where(const TrainConfig& train, bool StepCadence::*duty) {
  std::set<int64_t> steps;
  for (int64_t step = 0; step < train.max_steps; ++step)
    if (cadence_at(train, step).*duty) steps.insert(step);
  return steps;
}

TEST(StepCadence, EvaluatesEveryEvalEveryStepsWhetherOrNotTheStepIsLogged) {
  TrainConfig t;
  t.max_steps = 1000;
  t.log_every = 100;
  t.eval_every = 250;
  t.checkpoint_every = 300;
  EXPECT_EQ(steps_where(t, &StepCadence::evaluate), (std::set<int64_t>{0, 250, 500, 750}));
  // The first 5 * 100 steps log every 10 steps (the dense early window), then every 100, plus step 750's
  // evaluation and the last step, 999.
  std::set<int64_t> logged = {500, 600, 700, 750, 800, 900, 999};
  for (int64_t s = 0; s < 500; s += 10) logged.insert(s);
  EXPECT_EQ(steps_where(t, &StepCadence::log), logged);
  // After 300, 600 and 900 steps are done: steps 299, 599, 899.
  EXPECT_EQ(steps_where(t, &StepCadence::checkpoint), (std::set<int64_t>{299, 599, 899}));
  t.eval_every = 0;
  t.checkpoint_every = 0;
  EXPECT_TRUE(steps_where(t, &StepCadence::evaluate).empty()) << "eval_every 0: only the final evaluation";
  EXPECT_TRUE(steps_where(t, &StepCadence::checkpoint).empty()) << "checkpoint_every 0: by wall time only";
  EXPECT_EQ(steps_where(t, &StepCadence::log).size(), 56u);
}

// A run's curves end where it does: its last step (max_steps - 1) always has a line, whatever log_every.
TEST(StepCadence, TheLastStepIsAlwaysLogged) {
  TrainConfig t;
  t.max_steps = 881;
  t.eval_every = 0;
  t.log_every = 100;
  EXPECT_TRUE(cadence_at(t, 880).log);
  EXPECT_FALSE(cadence_at(t, 879).log);
  EXPECT_EQ(*steps_where(t, &StepCadence::log).rbegin(), 880);
  t.max_steps = 1;
  EXPECT_TRUE(cadence_at(t, 0).log);
}

// A coarse log_every logs its first 5 * log_every steps every log_every / 10 steps, so a paper 1x1 run
// (default log_every 100, stops after ~700-900 steps) has ~50 points of its BOS-vs-step curve, not ~9.
TEST(StepCadence, ACoarseLogEveryLogsItsFirstStepsTenTimesAsDensely) {
  TrainConfig t;
  t.max_steps = 800;
  t.eval_every = 0;
  t.log_every = 100;
  EXPECT_EQ(log_spacing_at(t, 0), 10);
  EXPECT_EQ(log_spacing_at(t, 499), 10);
  EXPECT_EQ(log_spacing_at(t, 500), 100);
  EXPECT_EQ(steps_where(t, &StepCadence::log).size(), 54u);  // 0, 10, ..., 490, then 500, 600, 700, and 799
  t.log_every = 1000;  // the window scales with log_every
  t.max_steps = 6000;
  EXPECT_EQ(steps_where(t, &StepCadence::log).size(), 52u);  // 0, 100, ..., 4900, then 5000, and 5999
  // A log_every below 50 is dense already: every log_every-th step exactly, as before.
  t.log_every = 49;
  t.max_steps = 490;
  std::set<int64_t> every_49{489};  // and the last step
  for (int64_t s = 0; s < 490; s += 49) every_49.insert(s);
  EXPECT_EQ(steps_where(t, &StepCadence::log), every_49);
  EXPECT_EQ(log_spacing_at(t, 0), 49);
}

// The trainer follows the cadence: metrics.jsonl has a line at every logged step and evaluation
// numbers on exactly the evaluating ones; the final evaluation is in summary.json.
TEST(StepCadence, TheTrainerLogsAndEvaluatesOnTheCadencesSteps) {
  const fs::path dir = fs::temp_directory_path() / ("sinklab_step_cadence_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const RunConfig c = parse_run_config(
      "model: {layers: 1, heads: 1}\ntrain: {batch_size: 8, max_steps: 100, log_every: 10, eval_every: 25, "
      "stop_max_abs_error: 0}\ntask: {eval_samples: 16}\nanalysis: {eval_attention_samples: 16}\n",
      "cadence.yaml", {}, registered_vocabulary());
  TrainOptions o;
  o.quiet = true;
  o.run_dir = dir;
  Trainer(c).run(o);
  std::set<int64_t> logged, evaluated;
  for (const MetricsRecord& r : read_metrics(dir / "metrics.jsonl")) {
    logged.insert(r.step);
    if (r.eval_mse) evaluated.insert(r.step);
  }
  EXPECT_EQ(logged, steps_where(c.train, &StepCadence::log));
  EXPECT_EQ(evaluated, (std::set<int64_t>{0, 25, 50, 75}));
  EXPECT_EQ(read_run_summary(dir / "summary.json").steps, 100);
  EXPECT_EQ(*logged.rbegin(), 99) << "the last step has a line";
  fs::remove_all(dir);
}

// A run stopped by a rule at a step its cadence does not log still ends its log at that step (the
// report's curves stopped at step 800 for a run that stopped at 881), with that step's own numbers.
TEST(StepCadence, AStopRuleStepIsLoggedWithItsOwnNumbers) {
  const fs::path dir = fs::temp_directory_path() / ("sinklab_step_cadence_stop_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const RunConfig c = parse_run_config(
      "model: {layers: 1, heads: 1}\noptimizer: {lr: 1.0e-2}\ntrain: {batch_size: 8, max_steps: 400, log_every: 50, "
      "eval_every: 0, stop_max_abs_error: 0, stop_loss: 1.0e-3}\ntask: {eval_samples: 16}\n"
      "analysis: {eval_attention_samples: 16}\n",
      "cadence.yaml", {}, registered_vocabulary());
  TrainOptions o;
  o.quiet = true;
  o.run_dir = dir;
  const RunSummary s = Trainer(c).run(o);
  ASSERT_EQ(s.stop_reason, "loss") << "the config must stop by its rule for this test";
  ASSERT_FALSE(cadence_at(c.train, s.steps).log) << "step " << s.steps << " is on the cadence: pick another stop_loss";
  const std::vector<MetricsRecord> lines = read_metrics(dir / "metrics.jsonl");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().step, s.steps);
  EXPECT_EQ(lines.back().loss, s.train_loss);
  EXPECT_LT(lines.back().loss, 1.0e-3);
  EXPECT_FALSE(lines.back().heads.empty()) << "with its attention statistics";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
