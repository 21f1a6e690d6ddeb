#include "models/constructions.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "data/task_registry.h"
#include "data/trigger_conditional_task.h"
#include "layers/normalizers/normalizer_registry.h"
#include "models/model_loader.h"

namespace sinklab {
namespace {

std::string str(int v) { return std::to_string(v); }
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

void require(bool ok, const std::string& key, const std::string& detail) {
  if (!ok) throw ConstructionError(key, detail);
}

// The normalizer's resolved options (declared defaults for unset keys).
PluginOptions normalizer_options(const NormalizerConfig& n) {
  const NormalizerRegistration* registration = normalizer_registry().find(n.name);
  if (!registration)
    throw ConstructionError("model.attention.normalizer.name", "unknown normalizer " + in_quotes(n.name));
  return PluginOptions(registration->options, n.options);
}

void check_normalizer(const NormalizerConfig& n, ConstructionKind kind) {
  const std::string_view wanted = to_string(kind);
  require(n.name == wanted, "model.attention.normalizer.name",
          "the " + std::string(wanted) + " construction needs normalizer " + std::string(wanted) +
              ", the base config has " + in_quotes(n.name));
  const PluginOptions options = normalizer_options(n);
  if (kind == ConstructionKind::softmax) {
    require(options.number("temperature") == 1.0, "model.attention.normalizer.temperature",
            "the softmax construction's logits are beta exactly: needs temperature 1, got " +
                number_text(options.number("temperature")));
  } else {
    require(options.choice("divisor") == "visible_non_bos", "model.attention.normalizer.divisor",
            "the relu construction averages the trigger row's j keys with weights c / j: needs divisor visible_non_bos "
            "(max(i, 1)), got " + in_quotes(options.choice("divisor")));
  }
}

bool finite_in_float(double v) { return std::isfinite(v) && std::fabs(v) <= std::numeric_limits<float>::max(); }

// weight [rows, cols] row-major, element (r, k).
float& at(const Tensor& weight, int64_t r, int64_t k) { return weight.data()[r * weight.dim(1) + k]; }

}  // namespace

ConstructionError::ConstructionError(std::string key, std::string detail)
    : std::invalid_argument(key + ": " + detail), key_(std::move(key)), detail_(std::move(detail)) {}

void check_construction_base(const RunConfig& config, ConstructionKind kind) {
  const ModelConfig& m = config.model;
  require(config.task.name == "trigger_conditional", "task.name",
          "the constructions solve the trigger_conditional task, the base config has " + in_quotes(config.task.name));
  const auto task = make_task(config.task, m.residual);
  const auto* trigger_task = dynamic_cast<const TriggerConditionalTask*>(task.get());
  require(trigger_task != nullptr, "task.name", "the task " + in_quotes(config.task.name) + " is not the trigger task");
  require(trigger_task->has_bos(), "task.bos", "the constructions park weight on BOS: needs true");
  const int dim = task->shape().input_dim;
  require(m.input == InputKind::vectors, "model.input", "the construction reads the task's vectors: needs vectors");
  require(!m.input_projection, "model.input_projection",
          "the construction reads the task's vectors as they are: needs false");
  require(m.d_model == dim, "model.d_model", "needs d_model = task.dim (" + str(dim) + "), got " + str(m.d_model));
  require(m.head_dim.mode == HeadDimMode::full, "model.head_dim",
          "the construction's head is d_model wide: needs full, got " +
              (m.head_dim.mode == HeadDimMode::split ? std::string("split") : str(m.head_dim.size)));
  require(m.norm == NormKind::none, "model.norm", "needs none, got " + std::string(to_string(m.norm)));
  require(m.mlp_hidden == 0, "model.mlp_hidden", "needs 0 (no MLP), got " + str(m.mlp_hidden));
  require(!m.bias, "model.bias", "the construction has no biases: needs false");
  require(m.positional == Positional::none, "model.positional",
          "needs none, got " + std::string(to_string(m.positional)));
  require(!m.output_head, "model.output_head", "the head's output is the model's output: needs false");
  require(m.attention.scale == ScaleKind::none, "model.attention.scale",
          "the construction's logits are unscaled: needs none, got " + std::string(to_string(m.attention.scale)));
  require(!m.attention.key_bias, "model.attention.key_bias", "the sink is BOS itself: needs false");
  check_normalizer(m.attention.normalizer, kind);
  require(m.residual || m.layers == 1, "model.residual",
          "with layers > 1 the head's output has to reach the model's output through the residual stream: needs true");
  require(trigger_task->residual_target() == m.residual, "task.target",
          m.residual
              ? "a residual model returns x + the head's output: needs residual (or auto), got mean"
              : "a model without the residual stream returns the head's output: needs mean (or auto), got residual");
}

void check_construction_params(ConstructionKind kind, const ConstructionParams& p) {
  if (kind == ConstructionKind::softmax)
    require(finite_in_float(p.beta) && static_cast<float>(p.beta) > 0, "--beta",
            "must be a number > 0 (a float32, so at least about 1.4e-45), got " + number_text(p.beta));
  else
    require(finite_in_float(p.c) && p.c > 0 && finite_in_float(1.0 / p.c) && static_cast<float>(p.c) > 0, "--c",
            "must be a number > 0 whose inverse is a float32 too, got " + number_text(p.c));
}

std::unique_ptr<Model> build_construction(const RunConfig& config, ConstructionKind kind,
                                          const ConstructionParams& params) {
  check_construction_base(config, kind);
  check_construction_params(kind, params);
  std::unique_ptr<Model> model = build_model(config);
  ParameterStore& store = model->parameters();
  const auto values = store.values();
  std::fill(values.begin(), values.end(), 0.0f);  // every entry the construction does not set is 0

  const int d = config.model.d_model;
  const Tensor w_q = store.tensor("blocks.0.attn.w_q.weight");  // [H*d, d]
  const Tensor w_k = store.tensor("blocks.0.attn.w_k.weight");  // [H*d, d]
  const Tensor w_v = store.tensor("blocks.0.attn.w_v.weight");  // [H*d, d]
  const Tensor w_o = store.tensor("blocks.0.attn.w_o.weight");  // [d, H*d]
  // W_V = I without the BOS coordinate: BOS's value is 0, so attention parked on it adds nothing.
  for (int r = 1; r < d; ++r) at(w_v, r, r) = 1.0f;
  if (kind == ConstructionKind::relu) {
    const auto c = static_cast<float>(params.c);
    at(w_q, 0, 1) = c;      // only the trigger row has a query
    at(w_k, 0, 1) = 1.0f;   // every non-BOS key (trigger or ordinary) answers it
    at(w_k, 0, d - 1) = 1.0f;
    const auto inv_c = static_cast<float>(1.0 / params.c);
    for (int r = 0; r < d; ++r) at(w_o, r, r) = inv_c;
  } else {
    const auto beta = static_cast<float>(params.beta);
    at(w_q, 0, 0) = beta;  // BOS and ordinary rows score BOS with +beta
    at(w_q, 0, d - 1) = beta;
    at(w_q, 0, 1) = -beta;  // the trigger row with -beta: it averages its keys
    at(w_k, 0, 0) = 1.0f;   // only BOS has a key
    for (int r = 0; r < d; ++r) at(w_o, r, r) = 1.0f;
  }
  return model;
}

}  // namespace sinklab
