// Optimizers, schedules and clipping against hand-computed updates.
#include <gtest/gtest.h>

#include <cmath>

#include "train/adam.h"
#include "train/lr_schedule.h"
#include "train/optimizer.h"
#include "train/sgd.h"

namespace sinklab {
namespace {

// A store with one parameter [2] = {1, -2} and gradient {0.5, 0.25}.
struct OneParam {
  ParameterStore store;
  OneParam() {
    store.declare("w", {2});
    store.finalize();
    set_grad();
    store.values()[0] = 1.0f;
    store.values()[1] = -2.0f;
  }
  void set_grad() {
    store.grads()[0] = 0.5f;
    store.grads()[1] = 0.25f;
  }
};

TEST(Sgd, MomentumAndWeightDecayMatchTorchConvention) {
  OneParam p;
  Sgd sgd(0.9f, 0.1f);
  sgd.step(p.store, 0.1f);  // buf = g + wd p = 0.5 + 0.1 = 0.6 ; p = 1 - 0.06
  EXPECT_FLOAT_EQ(p.store.values()[0], 0.94f);
  p.set_grad();
  sgd.step(p.store, 0.1f);  // buf = 0.9*0.6 + (0.5 + 0.1*0.94) = 1.134 ; p = 0.94 - 0.1134
  EXPECT_NEAR(p.store.values()[0], 0.94f - 0.1134f, 1e-6);
}

TEST(Adam, FirstStepMovesByLearningRateAndAdamWDecaysDecoupled) {
  OneParam a, w;
  Adam adam(0.9f, 0.95f, 1e-8f, 0.0f, false);
  adam.step(a.store, 0.01f);  // bias-corrected m/sqrt(v) = sign(g) on step 1
  EXPECT_NEAR(a.store.values()[0], 1.0f - 0.01f, 1e-6);
  EXPECT_NEAR(a.store.values()[1], -2.0f - 0.01f, 1e-6);
  Adam adamw(0.9f, 0.95f, 1e-8f, 0.5f, true);
  adamw.step(w.store, 0.01f);  // p *= (1 - lr wd) first: 1 * 0.995 - 0.01
  EXPECT_NEAR(w.store.values()[0], 0.995f - 0.01f, 1e-6);
  EXPECT_NEAR(w.store.values()[1], -2.0f * 0.995f - 0.01f, 1e-6);
  EXPECT_EQ(adamw.steps(), 1);
}

TEST(Adam, L2WeightDecayEntersTheGradient) {
  OneParam a;
  Adam adam(0.9f, 0.95f, 1e-8f, 10.0f, false);  // g0 = 0.5 + 10*1 > 0; g1 = 0.25 + 10*(-2) < 0
  adam.step(a.store, 0.01f);
  EXPECT_NEAR(a.store.values()[0], 0.99f, 1e-6);
  EXPECT_NEAR(a.store.values()[1], -1.99f, 1e-6);
}

TEST(LearningRate, ConstantWarmupCosine) {
  OptimizerConfig c;
  c.lr = 1.0;
  EXPECT_DOUBLE_EQ(learning_rate(c, 7, 100), 1.0);
  c.schedule = ScheduleKind::warmup;
  c.warmup_steps = 4;
  EXPECT_DOUBLE_EQ(learning_rate(c, 0, 100), 0.25);
  EXPECT_DOUBLE_EQ(learning_rate(c, 3, 100), 1.0);
  EXPECT_DOUBLE_EQ(learning_rate(c, 50, 100), 1.0);
  c.schedule = ScheduleKind::cosine;
  c.min_lr = 0.1;
  EXPECT_DOUBLE_EQ(learning_rate(c, 1, 104), 0.5);
  EXPECT_NEAR(learning_rate(c, 4, 104), 1.0, 1e-12);
  EXPECT_NEAR(learning_rate(c, 54, 104), 0.55, 1e-12);  // halfway: (1 + 0.1) / 2
  EXPECT_NEAR(learning_rate(c, 104, 104), 0.1, 1e-12);
}

TEST(GradientClipping, ScalesToMaxNormAndReportsTheNormBefore) {
  OneParam p;
  const double norm = std::sqrt(0.5 * 0.5 + 0.25 * 0.25);
  EXPECT_NEAR(gradient_norm(p.store), norm, 1e-7);
  EXPECT_NEAR(clip_gradient_norm(p.store, 0.1), norm, 1e-7);
  EXPECT_NEAR(gradient_norm(p.store), 0.1, 1e-6);
  EXPECT_NEAR(p.store.grads()[0] / p.store.grads()[1], 2.0f, 1e-6);  // direction kept
  EXPECT_NEAR(clip_gradient_norm(p.store, 5.0), 0.1, 1e-6);           // below the limit: untouched
  EXPECT_NEAR(gradient_norm(p.store), 0.1, 1e-6);
}

}  // namespace
}  // namespace sinklab
