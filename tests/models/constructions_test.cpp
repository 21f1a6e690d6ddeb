// The explicit constructions (models/constructions.h) against the numbers of their spec
// (docs/reproducing-sinks.md, "Explicit constructions"): the weights entry by entry; relu exact with
// no mass on non-trigger rows; the softmax beta table (error, MSE against a float64 evaluation of the
// same inputs, BOS mass on non-trigger rows); the 2x2 stack with one sinking head; and every base
// config key that cannot hold the construction, named.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "config_loading/config_loader.h"
#include "core/graph.h"
#include "data/eval_set.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "models/constructions.h"
#include "models/evaluation.h"
#include "stats/sink_observer.h"

namespace sinklab {
namespace {

constexpr int kTrigger = 7, kSeqLen = 16, kDim = 16;

RunConfig paper_config(const std::string& file, const std::vector<std::string>& overrides = {}) {
  const ConfigVocabulary vocab = registered_vocabulary();
  return load_run_config(std::string(SINKLAB_SOURCE_DIR) + "/configs/" + file, overrides, vocab, std::nullopt);
}

RunConfig base_of(ConstructionKind kind, const std::vector<std::string>& overrides = {}) {
  return paper_config("paper/1x1_" + std::string(to_string(kind)) + ".yaml", overrides);
}

// What the trainer's final evaluation measures, on all 1,000 evaluation inputs.
struct Evaluated {
  EvalMetrics metrics;
  std::vector<HeadSinkStats> heads;
  AttentionMapAccumulator maps;
};

Evaluated evaluate(Model& model) {
  const RunConfig& c = model.config();
  const auto task = make_task(c.task, c.model.residual);
  const EvalSet set(*task, c.task);
  SinkStatisticsAccumulator stats(c.model.layers, c.model.heads, task->seq_len(), c.analysis.sink_eps);
  Evaluated out{{}, {}, AttentionMapAccumulator(c.model.layers, c.model.heads, task->seq_len())};
  SinkObserver observer(&stats, &out.maps);
  AttentionObserver* const observers[] = {&observer};
  EvalOptions options;
  options.attention_samples = set.size();
  Graph g;
  out.metrics = evaluate_model(g, model.transformer(), TaskObjective(task->shape()), set, observers, options);
  out.heads = stats.finish();
  return out;
}

Evaluated construct_and_evaluate(const RunConfig& config, ConstructionKind kind, ConstructionParams params) {
  auto model = build_construction(config, kind, params);
  return evaluate(*model);
}

// Non-trigger rows of the evaluation inputs: 1..L-1 except j.
std::vector<int> nontrigger_rows() {
  std::vector<int> rows;
  for (int i = 1; i < kSeqLen; ++i)
    if (i != kTrigger) rows.push_back(i);
  return rows;
}

// The softmax construction evaluated in float64 on the very inputs the model sees: row i's weights
// are e^beta / (e^beta + i) on BOS (whose value is 0) and 1 / (e^beta + i) on each other key; the
// trigger row's are 1 / (j + e^-beta) on keys 1..j. Returns the MSE against the task's targets.
double softmax_mse_in_float64(const RunConfig& config, double beta) {
  const auto task = make_task(config.task, config.model.residual);
  const EvalSet set(*task, config.task);
  const ConstBatchView all = set.all();
  const int T = set.seq_len(), d = set.input_dim();
  double sum = 0;
  for (int b = 0; b < set.size(); ++b) {
    const float* x = all.inputs + static_cast<size_t>(b) * T * d;
    const float* y = all.targets + static_cast<size_t>(b) * T * d;
    for (int i = 0; i < T; ++i) {
      const double key_weight = i == 0          ? 0.0
                                : i == kTrigger ? 1.0 / (kTrigger + std::exp(-beta))
                                                : 1.0 / (std::exp(beta) + i);
      for (int col = 0; col < d; ++col) {
        double out = 0;
        for (int k = 1; k <= i; ++k) out += col == 0 ? 0.0 : key_weight * x[k * d + col];  // W_V drops coordinate 0
        const double err = out - y[i * d + col];
        sum += err * err;
      }
    }
  }
  return sum / (static_cast<double>(set.size()) * T * d);
}

TEST(Constructions, EveryWeightIsTheSpecsEntryAndEveryOtherIsZero) {
  const ConstructionParams params{7.5, 2.5};
  for (const ConstructionKind kind : {ConstructionKind::relu, ConstructionKind::softmax}) {
    SCOPED_TRACE(std::string(to_string(kind)));
    const RunConfig config = paper_config("paper/2x2_" + std::string(to_string(kind)) + ".yaml");
    const auto model = build_construction(config, kind, params);
    const int d = kDim;
    // The spec's entries of head 0 of block 0 (layout [out, in]); 0 anywhere else.
    const auto expected = [&](const std::string& name, int r, int k) -> float {
      const bool head0 = name.rfind("blocks.0.attn.", 0) == 0;
      const bool in_head0 = name.find("w_o") != std::string::npos ? k < d : r < d;
      if (!head0 || !in_head0) return 0.0f;
      const bool diagonal = r == k;
      const auto beta = static_cast<float>(params.beta), c = static_cast<float>(params.c);
      if (name == "blocks.0.attn.w_v.weight") return diagonal && r != 0 ? 1.0f : 0.0f;
      if (kind == ConstructionKind::relu) {
        if (name == "blocks.0.attn.w_q.weight") return r == 0 && k == 1 ? c : 0.0f;
        if (name == "blocks.0.attn.w_k.weight") return r == 0 && (k == 1 || k == d - 1) ? 1.0f : 0.0f;
        if (name == "blocks.0.attn.w_o.weight") return diagonal ? static_cast<float>(1.0 / params.c) : 0.0f;
      } else {
        if (name == "blocks.0.attn.w_q.weight")
          return r == 0 && (k == 0 || k == d - 1) ? beta : r == 0 && k == 1 ? -beta : 0.0f;
        if (name == "blocks.0.attn.w_k.weight") return r == 0 && k == 0 ? 1.0f : 0.0f;
        if (name == "blocks.0.attn.w_o.weight") return diagonal ? 1.0f : 0.0f;
      }
      return 0.0f;
    };
    int nonzero = 0;
    for (const ParameterInfo& p : model->parameters().parameters()) {
      ASSERT_EQ(p.shape.rank, 2) << p.name;
      const Tensor w = model->parameters().tensor(p.name);
      for (int64_t r = 0; r < w.dim(0); ++r)
        for (int64_t k = 0; k < w.dim(1); ++k) {
          const float v = w.data()[r * w.dim(1) + k];
          ASSERT_EQ(v, expected(p.name, static_cast<int>(r), static_cast<int>(k)))
              << p.name << "[" << r << "][" << k << "]";
          nonzero += v != 0.0f;
        }
    }
    // W_V's 15 ones and W_O's 16 diagonal entries, plus the query and key entries.
    EXPECT_EQ(nonzero, kind == ConstructionKind::relu ? 15 + 16 + 1 + 2 : 15 + 16 + 3 + 1);
  }
}

TEST(Constructions, ReluIsExactWithNothingOnNonTriggerRows) {
  for (const double c : {1.0, 3.0}) {
    SCOPED_TRACE("c = " + std::to_string(c));
    Evaluated e = construct_and_evaluate(base_of(ConstructionKind::relu), ConstructionKind::relu, {20.0, c});
    EXPECT_LE(e.metrics.max_abs_error, 2.4e-7);
    const std::vector<float> mean = e.maps.mean(0, 0), spread = e.maps.stddev(0, 0);
    for (int i : nontrigger_rows())
      for (int k = 0; k < kSeqLen; ++k) {
        ASSERT_EQ(mean[i * kSeqLen + k], 0.0f) << "row " << i << " key " << k;
        ASSERT_EQ(spread[i * kSeqLen + k], 0.0f) << "row " << i << " key " << k;
      }
    // The trigger row: c / 7 on keys 1..7 in every input, nothing on BOS or the masked keys. The kernel
    // multiplies c by 1 / 7 in float32: two roundings, so within two float32 ulps of c / 7, and exactly
    // the float32 1 / 7 for c = 1.
    const float* trigger = &mean[kTrigger * kSeqLen];
    EXPECT_EQ(trigger[0], 0.0f);
    for (int k = 1; k <= kTrigger; ++k) {
      if (c == 1.0) {
        EXPECT_EQ(trigger[k], 1.0f / 7.0f) << k;
      }
      const float nearest = static_cast<float>(c / 7.0), ulp = std::nextafter(nearest, 1e9f) - nearest;
      EXPECT_NEAR(trigger[k], c / 7.0, 2 * ulp) << k;
      EXPECT_EQ(spread[kTrigger * kSeqLen + k], 0.0f) << k;
    }
    for (int k = kTrigger + 1; k < kSeqLen; ++k) EXPECT_EQ(trigger[k], 0.0f) << k;
    ASSERT_EQ(e.heads.size(), 1u);
    EXPECT_EQ(e.heads[0].mass_nontrigger_mean, 0.0);
    EXPECT_EQ(e.heads[0].bos_mass_nontrigger_mean, 0.0);
    EXPECT_EQ(e.heads[0].trigger_bos, 0.0);
  }
}

// The spec's table (d = L = 16, j = 7): eta = 14 / (e^beta + 15), MSE, BOS@nt mean / min.
struct BetaRow {
  double beta, eta, mse, bos_mean, bos_min;
};
constexpr BetaRow kBetaTable[] = {
    {2, 0.6253, 1.908e-2, 0.525202, 0.330030},     {5, 0.08567, 2.308e-4, 0.949194, 0.908208},
    {10, 6.352e-4, 1.212e-8, 0.999634, 0.999319}, {15, 4.283e-6, 5.5e-13, 0.999998, 0.999995},
    {20, 2.4e-7, 5e-17, 1.0, 1.0},
};

TEST(Constructions, SoftmaxMatchesTheBetaTable) {
  const RunConfig config = base_of(ConstructionKind::softmax);
  for (const BetaRow& row : kBetaTable) {
    SCOPED_TRACE("beta = " + std::to_string(row.beta));
    Evaluated e = construct_and_evaluate(config, ConstructionKind::softmax, {row.beta, 1.0});
    const double eb = std::exp(row.beta);
    if (row.beta <= 15) {
      EXPECT_NEAR(e.metrics.max_abs_error, row.eta, 0.01 * row.eta);
      EXPECT_NEAR(e.metrics.max_abs_error, 14.0 / (eb + 15.0), 0.01 * row.eta);
      // The same inputs in float64: the float32 forward agrees to rounding.
      const double reference = softmax_mse_in_float64(config, row.beta);
      EXPECT_NEAR(e.metrics.mse, reference, 1e-4 * reference);
      // The table's MSE came from other random inputs: within the spread of 1,000 samples.
      EXPECT_NEAR(e.metrics.mse, row.mse, 0.02 * row.mse);
    } else {
      EXPECT_LE(e.metrics.max_abs_error, row.eta);
      EXPECT_LE(e.metrics.mse, 1e-16);  // float32 rounding only
    }
    ASSERT_EQ(e.heads.size(), 1u);
    const HeadSinkStats& h = e.heads[0];
    EXPECT_NEAR(h.bos_mass_nontrigger_mean, row.bos_mean, 1e-6);
    EXPECT_NEAR(h.bos_mass_nontrigger_min, row.bos_min, 1e-6);
    // The exact rows behind those numbers, from the mean map: BOS e^beta / (e^beta + i), each content
    // key 1 / (e^beta + i); the trigger row 1 / (j + e^-beta) on keys 1..j.
    const std::vector<float> mean = e.maps.mean(0, 0);
    for (int i : nontrigger_rows()) {
      EXPECT_NEAR(mean[i * kSeqLen], eb / (eb + i), 1e-6) << i;
      for (int k = 1; k <= i; ++k) EXPECT_NEAR(mean[i * kSeqLen + k], 1.0 / (eb + i), 1e-6) << i << "," << k;
    }
    for (int k = 1; k <= kTrigger; ++k)
      EXPECT_NEAR(mean[kTrigger * kSeqLen + k], 1.0 / (kTrigger + 1.0 / eb), 1e-6) << k;
    // W_V maps BOS to 0: however much a row parks there, BOS adds nothing to the output.
    EXPECT_EQ(h.value_weighted_bos_share, 0.0);
  }
}

TEST(Constructions, TwoByTwoNeedsOneSinkingHead) {
  for (const double beta : {10.0, 20.0}) {
    SCOPED_TRACE("beta = " + std::to_string(beta));
    const Evaluated single =
        construct_and_evaluate(base_of(ConstructionKind::softmax), ConstructionKind::softmax, {beta, 1.0});
    Evaluated stack =
        construct_and_evaluate(paper_config("paper/2x2_softmax.yaml"), ConstructionKind::softmax, {beta, 1.0});
    // The stack returns x + the same head output: its error differs only by the rounding of adding
    // x (|x| <= 1), at most one float32 ulp of a number in [1, 2).
    EXPECT_NEAR(stack.metrics.max_abs_error, single.metrics.max_abs_error, 2.4e-7);
    ASSERT_EQ(stack.heads.size(), 4u);
    EXPECT_NEAR(stack.heads[0].bos_mass_nontrigger_mean, single.heads[0].bos_mass_nontrigger_mean, 1e-6);
    // The other three heads score every key 0: uniform rows, 1 / (i + 1) each.
    double uniform_bos = 0;
    for (int i : nontrigger_rows()) uniform_bos += 1.0 / (i + 1) / 14.0;
    EXPECT_NEAR(uniform_bos, 0.161123, 1e-6);
    for (int head = 1; head < 4; ++head) {
      SCOPED_TRACE("head " + std::to_string(head));
      EXPECT_NEAR(stack.heads[head].bos_mass_nontrigger_mean, 0.161123, 1e-6);
      EXPECT_NEAR(stack.heads[head].sink_score, 3.380728993228 / 16, 1e-6);  // H_16 / 16, below eps 0.3
      EXPECT_FALSE(stack.heads[head].sink_head);
      const std::vector<float> mean = stack.maps.mean(head / 2, head % 2);
      for (int i = 0; i < kSeqLen; ++i)
        for (int k = 0; k <= i; ++k) ASSERT_NEAR(mean[i * kSeqLen + k], 1.0 / (i + 1), 1e-7) << i << "," << k;
    }
    EXPECT_TRUE(stack.heads[0].sink_head);
    EXPECT_EQ(sink_rate(stack.heads), 0.25);
  }
}

TEST(Constructions, TwoByTwoReluKeepsItsOtherHeadsSilent) {
  Evaluated stack = construct_and_evaluate(paper_config("paper/2x2_relu.yaml"), ConstructionKind::relu, {20.0, 1.0});
  EXPECT_LE(stack.metrics.max_abs_error, 2.4e-7);
  for (int head = 0; head < 4; ++head) {
    const std::vector<float> mean = stack.maps.mean(head / 2, head % 2);
    for (int i = 0; i < kSeqLen; ++i)
      for (int k = 0; k < kSeqLen; ++k)
        if (head != 0 || i != kTrigger) {
          ASSERT_EQ(mean[i * kSeqLen + k], 0.0f) << head << ": " << i << "," << k;
        }
  }
}

std::string refused_key(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConstructionError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(e.key() + ": ", 0), 0u) << e.what();
    return e.key();
  } catch (const ConfigError& e) {  // the config loader refuses some bases before the construction sees them
    return "loader: " + e.key();
  }
  return "(accepted)";
}

TEST(Constructions, RefusesABaseThatCannotHoldItNamingTheKey) {
  using K = ConstructionKind;
  const struct {
    K kind;
    const char* file;
    std::vector<std::string> overrides;
    const char* key;
  } cases[] = {
      {K::softmax, "tasks/copy.yaml", {}, "task.name"},
      {K::softmax, "paper/1x1_softmax.yaml", {"model.input=tokens", "model.vocab_size=16"}, "loader: model.input"},
      {K::softmax, "paper/1x1_softmax.yaml", {"model.input_projection=true"}, "model.input_projection"},
      {K::softmax, "paper/1x1_softmax.yaml", {"model.d_model=32"}, "loader: model.d_model"},
      {K::softmax, "paper/1x1_softmax.yaml", {"model.heads=2", "model.head_dim=split"}, "model.head_dim"},
      {K::relu, "paper/1x1_relu.yaml", {"model.head_dim=8"}, "model.head_dim"},
      {K::softmax, "paper/1x1_softmax.yaml", {"model.norm=layer_norm"}, "model.norm"},
      {K::relu, "paper/1x1_relu.yaml", {"model.mlp_hidden=32"}, "model.mlp_hidden"},
      {K::softmax, "paper/1x1_softmax.yaml", {"model.bias=true"}, "model.bias"},
      {K::softmax, "paper/1x1_softmax.yaml", {"model.positional=learned"}, "model.positional"},
      {K::relu, "paper/1x1_relu.yaml", {"model.output_head=true"}, "model.output_head"},
      {K::softmax, "paper/1x1_softmax.yaml", {"model.attention.scale=inv_sqrt_head_dim"}, "model.attention.scale"},
      {K::softmax, "paper/1x1_softmax.yaml", {"model.attention.key_bias=true"}, "model.attention.key_bias"},
      {K::relu, "paper/1x1_softmax.yaml", {}, "model.attention.normalizer.name"},
      {K::softmax, "paper/1x1_relu.yaml", {}, "model.attention.normalizer.name"},
      {K::softmax,
       "paper/1x1_softmax.yaml",
       {"model.attention.normalizer.temperature=2"},
       "model.attention.normalizer.temperature"},
      {K::relu,
       "paper/1x1_relu.yaml",
       {"model.attention.normalizer.divisor=visible"},
       "model.attention.normalizer.divisor"},
      {K::softmax, "paper/1x1_softmax.yaml", {"model.layers=2"}, "model.residual"},
      {K::softmax, "paper/2x2_softmax.yaml", {"task.target=mean"}, "task.target"},
      {K::relu, "paper/1x1_relu.yaml", {"task.target=residual"}, "task.target"},
      {K::relu, "paper/1x1_relu.yaml", {"model.residual=true"}, "task.target"},  // the file says target: mean
      {K::relu, "paper/1x1_relu.yaml", {"model.residual=true", "task.target=auto"}, "(accepted)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.file) + " " + (c.overrides.empty() ? "" : c.overrides[0]));
    EXPECT_EQ(refused_key([&] { check_construction_base(paper_config(c.file, c.overrides), c.kind); }), c.key);
  }
  // A stack without the residual stream, should the loader ever allow one (the spec's pure stacks):
  // block 1's zero weights would erase the head's output.
  RunConfig pure = base_of(K::softmax);
  pure.model.layers = 2;
  EXPECT_EQ(refused_key([&] { check_construction_base(pure, K::softmax); }), "model.residual");
  // build_construction checks too.
  EXPECT_EQ(refused_key([&] { build_construction(base_of(K::relu, {"model.bias=true"}), K::relu, {}); }), "model.bias");
}

TEST(Constructions, RefusesParametersOutsideTheirRange) {
  using K = ConstructionKind;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (const double beta : {0.0, -1.0, inf, nan, 1e39})
    EXPECT_EQ(refused_key([&] { check_construction_params(K::softmax, {beta, 1.0}); }), "--beta") << beta;
  for (const double c : {0.0, -1.0, inf, nan, 1e39, 1e-39})
    EXPECT_EQ(refused_key([&] { check_construction_params(K::relu, {20.0, c}); }), "--c") << c;
  // Each kind reads only its own parameter.
  EXPECT_EQ(refused_key([&] { check_construction_params(K::relu, {-1.0, 1.0}); }), "(accepted)");
  EXPECT_EQ(refused_key([&] { check_construction_params(K::softmax, {1e-3, 0.0}); }), "(accepted)");
}

}  // namespace
}  // namespace sinklab
