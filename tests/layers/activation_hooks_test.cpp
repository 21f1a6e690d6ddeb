// Activation hooks (core/observe/activation_hooks.h): every named activation of a block model is handed
// over once, in order, in the documented layout; a hook that changes nothing changes no bit of the output
// of an observed (materialized) pass; zeroing column 0 of a head's weights equals the zero_bos_weight
// ablation bit for bit; a hook may edit an activation and the pass computes with the edit; the caller's
// input is never edited; a pass that records gradients refuses hooks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/rng.h"
#include "layers/attention_ablation.h"
#include "layers/transformer.h"

namespace sinklab {
namespace {

constexpr int64_t kBatch = 3, kSeq = 6, kInput = 5;

ModelConfig block_model() {
  ModelConfig m;
  m.d_model = 8;
  m.layers = 2;
  m.heads = 2;
  m.head_dim = {HeadDimMode::split, 0};
  m.residual = true;
  m.norm = NormKind::layer_norm;
  m.mlp_hidden = 12;
  m.bias = true;
  m.input_projection = true;
  m.output_head = true;
  m.init_std = 0.4;
  m.attention.scale = ScaleKind::inv_sqrt_head_dim;
  return m;
}

struct Built {
  ParameterStore store;
  std::unique_ptr<Transformer> model;
};

std::unique_ptr<Built> build(const ModelConfig& m, int input_dim = kInput) {
  auto b = std::make_unique<Built>();
  b->model = std::make_unique<Transformer>(b->store, m, ModelShape{input_dim, 4, kSeq});
  b->store.finalize();
  Rng rng(17);
  b->model->initialize(rng);
  return b;
}

std::vector<float> inputs(int64_t width = kInput) {
  std::vector<float> x(static_cast<size_t>(kBatch * kSeq * width));
  Rng rng(5);
  for (float& v : x) v = rng.uniform(-1.0f, 1.0f);
  return x;
}

// Records every activation's name, shape and a copy of its values (in the view's own index order).
class Recorder : public ActivationHooks {
 public:
  void on_activation(std::string_view name, const Tensor& value) override {
    names.emplace_back(name);
    shapes[std::string(name)] = value.shape();
    std::vector<float>& copy = values[std::string(name)];
    copy.clear();
    for_each_index(value, [&](float& v) { copy.push_back(v); });
  }
  template <class F>
  static void for_each_index(const Tensor& t, F f) {
    std::vector<int64_t> index(static_cast<size_t>(t.rank()), 0);
    for (int64_t n = 0; n < t.numel(); ++n) {
      int64_t offset = 0;
      for (int a = 0; a < t.rank(); ++a) offset += index[static_cast<size_t>(a)] * t.stride(a);
      f(t.data()[offset]);
      for (int a = t.rank() - 1; a >= 0; --a) {
        if (++index[static_cast<size_t>(a)] < t.dim(a)) break;
        index[static_cast<size_t>(a)] = 0;
      }
    }
  }
  std::vector<std::string> names;
  std::map<std::string, Shape> shapes;
  std::map<std::string, std::vector<float>> values;
};

// A pass with an observer: the materialized attention path, as evaluation runs it.
class NullObserver : public AttentionObserver {
 public:
  void on_attention(const AttentionView&) override {}
};

std::vector<float> output_of(Transformer& model, const std::vector<float>& x, int64_t width = kInput) {
  Graph g;
  NoGradGuard no_grad(g);
  const Tensor in(const_cast<float*>(x.data()), nullptr, Shape{kBatch, kSeq, width});
  const Tensor y = model.forward(g, in);
  return std::vector<float>(y.data(), y.data() + y.numel());
}

std::vector<float> observed_output(Transformer& model, const std::vector<float>& x, int64_t width = kInput) {
  NullObserver observer;
  auto registration = model.observers().observe(observer);
  return output_of(model, x, width);
}

TEST(ActivationHooks, EveryNamedActivationOnceInOrderWithItsLayout) {
  auto b = build(block_model());
  Recorder recorder;
  b->model->set_hooks(&recorder);
  output_of(*b->model, inputs());
  std::vector<std::string> expected;
  for (const std::string l : {"blocks.0.", "blocks.1."})
    for (const char* leaf : {"resid_pre", "ln1.out", "attn.q", "attn.k", "attn.v", "attn.scores", "attn.weights",
                             "attn.z", "attn.out", "resid_mid", "ln2.out", "mlp.out", "resid_post"})
      expected.push_back(l + leaf);
  expected.push_back("final_norm.out");
  expected.push_back("logits");
  EXPECT_EQ(recorder.names, expected);
  const int64_t B = kBatch, T = kSeq, H = 2, D = 4, C = 8;
  EXPECT_EQ(recorder.shapes["blocks.0.resid_pre"], (Shape{B, T, C}));
  EXPECT_EQ(recorder.shapes["blocks.1.attn.q"], (Shape{B, T, H, D}));
  EXPECT_EQ(recorder.shapes["blocks.0.attn.weights"], (Shape{B, H, T, T}));
  EXPECT_EQ(recorder.shapes["blocks.0.attn.z"], (Shape{B, T, H, D}));
  EXPECT_EQ(recorder.shapes["logits"], (Shape{B, T, 4}));
}

// The weights view [B, H, T, T] holds, at (b, h, i, j), what an observer reads for (b, h) row i key j.
TEST(ActivationHooks, WeightsViewIndexesLikeTheObserversBlocks) {
  auto b = build(block_model());
  class Blocks : public AttentionObserver {
   public:
    void on_attention(const AttentionView& v) override {
      if (v.layer != 1) return;
      for (int64_t s = 0; s < v.batch; ++s)
        for (int64_t h = 0; h < v.heads; ++h) {
          const float* w = v.weights_block(s, h);
          bhij.insert(bhij.end(), w, w + v.seq_len * v.seq_len);
        }
    }
    std::vector<float> bhij;
  } blocks;
  Recorder recorder;
  auto registration = b->model->observers().observe(blocks);
  b->model->set_hooks(&recorder);
  output_of(*b->model, inputs());
  EXPECT_EQ(recorder.values["blocks.1.attn.weights"], blocks.bhij);
}

class NoOp : public ActivationHooks {
 public:
  void on_activation(std::string_view, const Tensor&) override {}
};

TEST(ActivationHooks, AHookThatChangesNothingChangesNoBitOfAnObservedPass) {
  auto b = build(block_model());
  const std::vector<float> x = inputs();
  const std::vector<float> observed = observed_output(*b->model, x);
  NoOp noop;
  b->model->set_hooks(&noop);
  EXPECT_FALSE(b->model->block(0).attention().uses_fused_path(kSeq)) << "hooks need the weights to exist";
  EXPECT_EQ(output_of(*b->model, x), observed);
}

// Zeroes a_i0 of one head in every row: what zero_bos_weight does.
class ZeroBosWeight : public ActivationHooks {
 public:
  ZeroBosWeight(std::string name, int64_t head) : name_(std::move(name)), head_(head) {}
  void on_activation(std::string_view name, const Tensor& w) override {
    if (name != name_) return;
    for (int64_t s = 0; s < w.dim(0); ++s)
      for (int64_t i = 0; i < w.dim(2); ++i) w.at({s, head_, i, 0}) = 0.0f;
  }

 private:
  std::string name_;
  int64_t head_;
};

TEST(ActivationHooks, ZeroingABosColumnEqualsTheZeroBosWeightAblation) {
  auto b = build(block_model());
  const std::vector<float> x = inputs();
  b->model->set_ablation(AttentionAblation(AblationMode::zero_bos_weight, {HeadRef{1, 1}}));
  const std::vector<float> ablated = observed_output(*b->model, x);
  b->model->set_ablation(AttentionAblation());
  const std::vector<float> plain = observed_output(*b->model, x);
  ZeroBosWeight hook("blocks.1.attn.weights", 1);
  b->model->set_hooks(&hook);
  const std::vector<float> hooked = output_of(*b->model, x);
  EXPECT_EQ(hooked, ablated);
  EXPECT_NE(hooked, plain) << "the edit must change the output, or the comparison proves nothing";
}

// Patching: the residual stream of one pass written into another's gives the first pass's output.
TEST(ActivationHooks, AnEditedActivationIsWhatTheRestOfThePassReads) {
  auto b = build(block_model());
  const std::vector<float> x = inputs();
  std::vector<float> other = x;
  for (float& v : other) v = -v;
  Recorder from_other;
  b->model->set_hooks(&from_other);
  const std::vector<float> other_out = output_of(*b->model, other);
  class Patch : public ActivationHooks {
   public:
    explicit Patch(const std::vector<float>& v) : values(v) {}
    void on_activation(std::string_view name, const Tensor& t) override {
      if (name != "blocks.1.resid_pre") return;
      size_t n = 0;
      Recorder::for_each_index(t, [&](float& v) { v = values[n++]; });
    }
    const std::vector<float>& values;
  } patch(from_other.values["blocks.1.resid_pre"]);
  b->model->set_hooks(&patch);
  EXPECT_EQ(output_of(*b->model, x), other_out);
}

TEST(ActivationHooks, EditingTheFirstResidualNeverEditsTheCallersInput) {
  ModelConfig m = block_model();
  m.input_projection = false;  // blocks.0.resid_pre would be the input itself
  auto b = build(m, 8);
  const std::vector<float> x = inputs(8);
  class Zero : public ActivationHooks {
   public:
    void on_activation(std::string_view name, const Tensor& t) override {
      if (name == "blocks.0.resid_pre") Recorder::for_each_index(t, [](float& v) { v = 0.0f; });
    }
  } zero;
  b->model->set_hooks(&zero);
  std::vector<float> copy = x;
  output_of(*b->model, copy, 8);
  EXPECT_EQ(copy, x);
}

TEST(ActivationHooks, APassThatRecordsGradientsRefusesHooks) {
  auto b = build(block_model());
  NoOp noop;
  b->model->set_hooks(&noop);
  Graph g;  // grad mode on
  std::vector<float> x = inputs();
  EXPECT_THROW(b->model->forward(g, Tensor(x.data(), nullptr, Shape{kBatch, kSeq, kInput})), std::logic_error);
}

// A pass run from inside a hook (take_pass_context ... restore_pass_context around it) sees none of the
// outer pass's hooks, observers or ablation, and the outer pass goes on with all of them afterwards.
TEST(ActivationHooks, ANestedPassHasItsOwnContextAndTheOuterPassGetsItsOwnBack) {
  auto b = build(block_model());
  Transformer& model = *b->model;
  const std::vector<float> x = inputs();
  class CountingObserver : public AttentionObserver {
   public:
    void on_attention(const AttentionView&) override { ++calls; }
    int calls = 0;
  } outer_observer;
  class NestingHook : public ActivationHooks {
   public:
    NestingHook(Transformer& model, const std::vector<float>& x) : model_(model), x_(x) {}
    void on_activation(std::string_view name, const Tensor&) override {
      names.emplace_back(name);
      if (name != "blocks.0.attn.out") return;
      Transformer::PassContext outer = model_.take_pass_context();
      Recorder inner_hooks;
      model_.set_hooks(&inner_hooks);
      nested_output = output_of(model_, x_);
      inner_names = inner_hooks.names.size();
      model_.restore_pass_context(std::move(outer));
    }
    std::vector<std::string> names;
    std::vector<float> nested_output;
    size_t inner_names = 0;

   private:
    Transformer& model_;
    const std::vector<float>& x_;
  } nesting(model, x);
  Recorder plain_hooks;
  model.set_hooks(&plain_hooks);
  const std::vector<float> hooked_plain = output_of(model, x);  // hooks alone: no ablation, no observer
  model.set_hooks(nullptr);

  auto registration = model.observers().observe(outer_observer);
  model.set_ablation(AttentionAblation(AblationMode::zero_bos_weight, {HeadRef{1, 0}}));
  model.set_hooks(&nesting);
  const std::vector<float> outer_output = output_of(model, x);
  EXPECT_EQ(nesting.names, plain_hooks.names);  // the outer pass kept its hook after the nested one
  EXPECT_EQ(nesting.inner_names, plain_hooks.names.size());
  EXPECT_EQ(outer_observer.calls, 2);  // its own two layers, none of the nested pass's
  EXPECT_EQ(nesting.nested_output, hooked_plain);  // no ablation, no outer hook or observer inside
  EXPECT_NE(outer_output, hooked_plain);  // the ablation of layer 1 stayed with the outer pass
  EXPECT_EQ(model.hooks(), &nesting);
  EXPECT_EQ(model.ablation().heads().size(), 1u);
}

}  // namespace
}  // namespace sinklab
