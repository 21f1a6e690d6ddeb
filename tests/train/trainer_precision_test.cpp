// train.precision: bf16 training steps repeat and resume bit for bit, train like float32 ones, and leave
// evaluations in float32; the key stays out of config.yaml at its default (earlier runs keep their hashes).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "config_loading/config_loader.h"
#include "config_loading/config_writer.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

RunConfig small_config(MatmulPrecision precision) {
  RunConfig c = parse_run_config(
      "model: {layers: 2, heads: 2, residual: true}\noptimizer: {lr: 3.0e-3}\n"
      "train: {batch_size: 32, max_steps: 60, log_every: 10, eval_every: 20}\n"
      "task: {eval_samples: 64}\nanalysis: {eval_attention_samples: 64}\n",
      "test.yaml", {}, registered_vocabulary());
  c.train.precision = precision;
  return c;
}

std::vector<float> values(Trainer& t) { return {t.parameters().values().begin(), t.parameters().values().end()}; }

std::vector<float> params_after(const RunConfig& c, const TrainOptions& o) {
  Trainer t(c);
  t.run(o);
  return values(t);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(TrainerPrecision, Bf16RunsRepeatAndResumeBitIdentically) {
  const RunConfig c = small_config(MatmulPrecision::bf16);
  TrainOptions straight;
  straight.quiet = true;
  const auto reference = params_after(c, straight);
  EXPECT_TRUE(same_bits(reference, params_after(c, straight))) << "a repeat differs";
  EXPECT_FALSE(same_bits(reference, params_after(small_config(MatmulPrecision::float32), straight)))
      << "bf16 trained exactly like float32: the precision is not applied";

  const fs::path dir = fs::temp_directory_path() / ("sinklab_precision_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  TrainOptions first = straight;
  first.run_dir = dir;
  first.stop_at_step = 25;
  {
    Trainer t(c);
    t.run(first);
  }
  TrainOptions second = straight;
  second.run_dir = dir;
  second.resume_from = dir / "checkpoint.bin";
  EXPECT_TRUE(same_bits(reference, params_after(c, second))) << "the resumed run differs";
  fs::remove_all(dir);
}

TEST(TrainerPrecision, Bf16TrainsLikeFloat32) {
  TrainOptions o;
  o.quiet = true;
  RunConfig bf16_config = small_config(MatmulPrecision::bf16), float32_config = small_config(MatmulPrecision::float32);
  bf16_config.train.max_steps = float32_config.train.max_steps = 200;
  Trainer bf16(bf16_config), float32(float32_config);
  const double initial = float32.evaluate(nullptr).metrics.mse;
  const RunSummary a = bf16.run(o), b = float32.run(o);
  EXPECT_LT(b.eval_mse, 0.5 * initial) << "float32 did not train: the comparison would mean nothing";
  EXPECT_NEAR(a.eval_mse, b.eval_mse, 0.2 * b.eval_mse) << "bf16 " << a.eval_mse << " vs float32 " << b.eval_mse;
}

TEST(TrainerPrecision, EvaluationsStayFloat32) {
  // The same weights evaluate to the same bits under either precision, before and after bf16 steps.
  Trainer bf16(small_config(MatmulPrecision::bf16)), float32(small_config(MatmulPrecision::float32));
  ASSERT_TRUE(same_bits(values(bf16), values(float32)));
  const auto expect_same_evaluation = [&](const char* when) {
    const EvalResult a = bf16.evaluate(nullptr), b = float32.evaluate(nullptr);
    EXPECT_EQ(std::memcmp(&a.metrics.mse, &b.metrics.mse, sizeof(double)), 0) << when;
    EXPECT_EQ(std::memcmp(&a.metrics.max_abs_error, &b.metrics.max_abs_error, sizeof(double)), 0) << when;
    ASSERT_EQ(a.heads.size(), b.heads.size());
    for (size_t h = 0; h < a.heads.size(); ++h)
      EXPECT_EQ(std::memcmp(&a.heads[h].bos_mass_nontrigger_mean, &b.heads[h].bos_mass_nontrigger_mean, sizeof(double)),
                0)
          << when << " head " << h;
  };
  expect_same_evaluation("at initialization");
  for (int step = 0; step < 5; ++step) bf16.train_step(step, false);
  const auto trained = values(bf16);
  std::copy(trained.begin(), trained.end(), float32.parameters().values().begin());
  expect_same_evaluation("after 5 bf16 steps");
  EXPECT_EQ(bf16.graph().matmul_precision(), MatmulPrecision::float32) << "a step leaves its precision behind";
}

TEST(TrainerPrecision, TheKeyIsWrittenOnlyWhenNotTheDefault) {
  EXPECT_EQ(to_yaml(small_config(MatmulPrecision::float32)).find("precision"), std::string::npos);
  EXPECT_NE(to_yaml(small_config(MatmulPrecision::bf16)).find("precision: bf16"), std::string::npos);
  const RunConfig back = parse_run_config(to_yaml(small_config(MatmulPrecision::bf16)), "written.yaml", {},
                                          registered_vocabulary());
  EXPECT_EQ(back.train.precision, MatmulPrecision::bf16);
}

}  // namespace
}  // namespace sinklab
