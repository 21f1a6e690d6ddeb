#include "config_loading/config_schema.h"

#include <charconv>
#include <climits>
#include <filesystem>
#include <stdexcept>

#include "config_loading/closest_match.h"
#include "config_loading/plugin_fields.h"
#include "config_loading/scalar_value.h"

namespace sinklab {
namespace {

// Upper bounds of counts for which a larger value is never sensible on one machine. They are generous:
// the memory estimate (memory_estimate.h) is what refuses a combination that cannot fit; these stop
// absurd single values (and int overflow in the sizes derived from them) with the key named.
constexpr double kMaxThreads = 256;          // OpenMP threads: a large many-core server, oversubscribed
constexpr double kMaxWidth = 65536;          // d_model, head width
constexpr double kMaxLayersOrHeads = 1024;
constexpr double kMaxSeqLen = 65536;
constexpr double kMaxMlpHidden = 1 << 20;
constexpr double kMaxVocab = 1 << 24;
constexpr double kMaxBatch = 1 << 20;
constexpr double kMaxEvalSamples = 10000000;
// Softmax temperatures: 1 / temperature must be a normal float32 (logits are scaled by it in float32),
// with room left for large logits; 1e-20 already makes the softmax an argmax.
constexpr double kMinTemperature = 1e-20, kMaxTemperature = 1e20;

// Accessors are capture-less lambdas converted to function pointers; emit() reads through them with a
// const_cast, which is safe because an accessor only returns a reference and never writes.
template <typename T>
using Ref = T& (*)(RunConfig&);

template <typename T>
T& read(Ref<T> ref, const RunConfig& c) {
  return ref(const_cast<RunConfig&>(c));
}

FieldSpec int_field(std::string path, Ref<int> ref, Bound bound, std::string doc) {
  FieldSpec f;
  f.path = std::move(path);
  f.type = "integer";
  f.allowed = bound.text();
  f.doc = std::move(doc);
  f.parse = [ref, bound](const ScalarText& s, RunConfig& c) {
    const int64_t v = parse_integer(s);
    if (v < INT_MIN || v > INT_MAX) throw FieldValueError("integer " + s.text + " is out of range");
    check_bound(static_cast<double>(v), bound, s.text);
    ref(c) = static_cast<int>(v);
  };
  f.emit = [ref](const RunConfig& c) { return std::to_string(read(ref, c)); };
  return f;
}

FieldSpec unsigned_field(std::string path, Ref<uint64_t> ref, std::string doc) {
  FieldSpec f;
  f.path = std::move(path);
  f.type = "integer";
  f.allowed = "0 .. 2^64-1";
  f.doc = std::move(doc);
  f.parse = [ref](const ScalarText& s, RunConfig& c) { ref(c) = parse_unsigned(s); };
  f.emit = [ref](const RunConfig& c) { return std::to_string(read(ref, c)); };
  return f;
}

FieldSpec number_field(std::string path, Ref<double> ref, Bound bound, std::string doc) {
  FieldSpec f;
  f.path = std::move(path);
  f.type = "number";
  f.allowed = bound.text();
  f.doc = std::move(doc);
  f.parse = [ref, bound](const ScalarText& s, RunConfig& c) {
    const double v = parse_number(s);
    check_bound(v, bound, s.text);
    ref(c) = v;
  };
  f.emit = [ref](const RunConfig& c) { return format_number(read(ref, c)); };
  return f;
}

FieldSpec bool_field(std::string path, Ref<bool> ref, std::string doc) {
  FieldSpec f;
  f.path = std::move(path);
  f.type = "bool";
  f.allowed = "true | false";
  f.doc = std::move(doc);
  f.parse = [ref](const ScalarText& s, RunConfig& c) { ref(c) = parse_bool(s); };
  f.emit = [ref](const RunConfig& c) { return std::string(read(ref, c) ? "true" : "false"); };
  return f;
}

FieldSpec string_field(std::string path, Ref<std::string> ref, NameList names, std::string allowed,
                       std::string doc) {
  FieldSpec f;
  f.path = std::move(path);
  f.type = "string";
  f.allowed = std::move(allowed);
  f.doc = std::move(doc);
  f.names = names;
  f.parse = [ref](const ScalarText& s, RunConfig& c) { ref(c) = s.text; };
  f.emit = [ref](const RunConfig& c) { return read(ref, c); };
  return f;
}

template <typename E>
std::string enum_choices() {
  std::string out;
  for (const auto name : EnumNames<E>::values) out += (out.empty() ? "" : " | ") + std::string(name);
  return out;
}

template <typename E>
FieldSpec enum_field(std::string path, Ref<E> ref, std::string doc) {
  FieldSpec f;
  f.path = std::move(path);
  f.type = "enum";
  f.allowed = enum_choices<E>();
  f.doc = std::move(doc);
  f.parse = [ref](const ScalarText& s, RunConfig& c) {
    const auto& names = EnumNames<E>::values;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == s.text) {
        ref(c) = static_cast<E>(i);
        return;
      }
    }
    std::string message = "unknown value " + describe_scalar(s) + "; allowed: " + enum_choices<E>();
    const std::vector<std::string> candidates(names.begin(), names.end());
    if (const auto guess = closest_match(s.text, candidates)) message += "; did you mean '" + *guess + "'?";
    throw FieldValueError(message);
  };
  f.emit = [ref](const RunConfig& c) { return std::string(to_string(read(ref, c))); };
  return f;
}

FieldSpec head_dim_field() {
  FieldSpec f;
  f.path = "model.head_dim";
  f.type = "full | split | integer";
  f.allowed = "full, split, or 1 .. " + std::to_string(static_cast<int>(kMaxWidth));
  f.doc = "width of one head: full = d_model (the paper's full-width heads), split = d_model / heads "
          "(heads must divide d_model), or a fixed size";
  f.parse = [](const ScalarText& s, RunConfig& c) {
    if (s.text == "full" || s.text == "split") {
      c.model.head_dim = {s.text == "full" ? HeadDimMode::full : HeadDimMode::split, 0};
      return;
    }
    int64_t v = 0;
    try {
      v = parse_integer(s);
    } catch (const FieldValueError&) {
      throw FieldValueError("expected full, split or a positive integer, got " + describe_scalar(s));
    }
    if (v < 1) throw FieldValueError("must be full, split or >= 1, got " + s.text);
    if (v > kMaxWidth) {
      throw FieldValueError("must be full, split or <= " + std::to_string(static_cast<int>(kMaxWidth)) + ", got " +
                            s.text);
    }
    c.model.head_dim = {HeadDimMode::fixed, static_cast<int>(v)};
  };
  f.emit = [](const RunConfig& c) {
    switch (c.model.head_dim.mode) {
      case HeadDimMode::full: return std::string("full");
      case HeadDimMode::split: return std::string("split");
      case HeadDimMode::fixed: break;
    }
    return std::to_string(c.model.head_dim.size);
  };
  return f;
}

// model.init_from: a path, recorded absolute so that a run resumed from another directory finds the same
// file. Left out of the resolved config when empty, so configs without it keep their hashes.
FieldSpec init_from_field() {
  FieldSpec f = string_field("model.init_from", [](RunConfig& c) -> std::string& { return c.model.init_from; },
                             NameList::none, "a .safetensors file (relative to the current directory)",
                             "start from these weights instead of the initialization: every parameter is replaced "
                             "by the file's tensor of the same name and shape, and the file may hold nothing else "
                             "(`sinklab export` writes such files; docs/models.md)");
  f.default_text = "none";
  f.parse = [](const ScalarText& s, RunConfig& c) {
    if (s.text.empty()) throw FieldValueError("an empty path; leave the key out to start from the initialization");
    c.model.init_from = std::filesystem::absolute(s.text).lexically_normal().string();
  };
  f.misplaced = [](const RunConfig& c) -> std::string {
    return c.model.init_from.empty() ? "an empty path; leave the key out to start from the initialization" : "";
  };
  return f;
}

// A key added after runs were trained without it (the open checkpoints' architectures, Gu's window count):
// left out of config.yaml and the hashes at its default, so every earlier run keeps its hashes.
FieldSpec later(FieldSpec f) {
  f.omit_at_default = true;
  return f;
}

std::vector<FieldSpec> build_fields() {
  using B = Bound;
  std::vector<FieldSpec> t;
  auto name = string_field("name", [](RunConfig& c) -> std::string& { return c.name; }, NameList::none,
                           "one folder name of 1 .. 100 bytes (see Run name)", "run name, used for the run directory");
  name.default_text = "the config file's stem";
  t.push_back(name);
  t.push_back(unsigned_field("seed", [](RunConfig& c) -> uint64_t& { return c.seed; },
                             "seed of parameter initialization and training batches"));
  t.push_back(int_field("threads", [](RunConfig& c) -> int& { return c.threads; }, B::at_least(1).up_to(kMaxThreads),
                        "OpenMP threads for this run"));

  t.push_back(int_field("model.d_model", [](RunConfig& c) -> int& { return c.model.d_model; },
                        B::at_least(1).up_to(kMaxWidth),
                        "width of the residual stream"));
  t.push_back(int_field("model.layers", [](RunConfig& c) -> int& { return c.model.layers; },
                        B::at_least(1).up_to(kMaxLayersOrHeads),
                        "number of attention blocks"));
  t.push_back(int_field("model.heads", [](RunConfig& c) -> int& { return c.model.heads; },
                        B::at_least(1).up_to(kMaxLayersOrHeads),
                        "attention heads per block"));
  t.push_back(later(int_field("model.kv_heads", [](RunConfig& c) -> int& { return c.model.kv_heads; },
                              B::at_least(0).up_to(kMaxLayersOrHeads),
                              "key/value heads of grouped-query attention (must divide heads; query head h "
                              "reads key/value head h / (heads / kv_heads)); 0 = heads")));
  t.push_back(head_dim_field());
  t.push_back(bool_field("model.residual", [](RunConfig& c) -> bool& { return c.model.residual; },
                         "x <- x + block(x); false: x <- block(x), the paper's 1-layer model (any depth is allowed)"));
  t.push_back(enum_field<NormKind>("model.norm", [](RunConfig& c) -> NormKind& { return c.model.norm; },
                                   "pre-norm inside each block, plus a final norm when not none"));
  t.push_back(later(number_field("model.norm_eps", [](RunConfig& c) -> double& { return c.model.norm_eps; },
                                 B::closed(1e-30, 1), "epsilon inside the square root of every norm")));
  t.push_back(later(bool_field("model.parallel_residual",
                               [](RunConfig& c) -> bool& { return c.model.parallel_residual; },
                               "x <- x + Attn(N1(x)) + MLP(N2(x)), both from the same x (GPT-NeoX); needs "
                               "residual and an MLP")));
  t.push_back(int_field("model.mlp_hidden", [](RunConfig& c) -> int& { return c.model.mlp_hidden; },
                        B::at_least(0).up_to(kMaxMlpHidden), "hidden width of the block's MLP; 0 = no MLP"));
  t.push_back(enum_field<Activation>("model.mlp_activation",
                                     [](RunConfig& c) -> Activation& { return c.model.mlp_activation; },
                                     "activation of the MLP"));
  t.push_back(later(bool_field("model.mlp_gated", [](RunConfig& c) -> bool& { return c.model.mlp_gated; },
                               "fc2(act(fc1 x) * up x), a gated MLP (SwiGLU with mlp_activation: silu)")));
  t.push_back(bool_field("model.bias", [](RunConfig& c) -> bool& { return c.model.bias; },
                         "biases in all Linear layers"));
  t.push_back(later(enum_field<BiasSwitch>(
      "model.mlp_bias", [](RunConfig& c) -> BiasSwitch& { return c.model.mlp_bias; },
      "biases of the MLP's layers: as model.bias, or on / off")));
  t.push_back(later(enum_field<BiasSwitch>("model.output_head_bias",
                                           [](RunConfig& c) -> BiasSwitch& { return c.model.output_head_bias; },
                                           "bias of the untied output head: as model.bias, or on / off")));
  t.push_back(enum_field<InitKind>("model.init", [](RunConfig& c) -> InitKind& { return c.model.init; },
                                   "initialization of weight matrices"));
  t.push_back(number_field("model.init_std", [](RunConfig& c) -> double& { return c.model.init_std; }, B::above(0),
                           "standard deviation used by init: normal"));
  t.push_back(enum_field<Positional>("model.positional",
                                     [](RunConfig& c) -> Positional& { return c.model.positional; },
                                     "positional encoding"));
  t.push_back(later(int_field("model.position_offset", [](RunConfig& c) -> int& { return c.model.position_offset; },
                              B::at_least(0).up_to(kMaxSeqLen),
                              "positional: learned reads row t + position_offset for position t (OPT's 2)")));
  t.push_back(later(number_field("model.rope.theta", [](RunConfig& c) -> double& { return c.model.rope.theta; },
                                 B::above(1), "RoPE base: pair j turns by t * theta^(-2j/R) at position t")));
  t.push_back(later(int_field("model.rope.dims", [](RunConfig& c) -> int& { return c.model.rope.dims; },
                              B::at_least(0).up_to(kMaxWidth),
                              "R, the leading coordinates of each head that RoPE turns (even); 0 = all")));
  t.push_back(later(enum_field<RopePairing>("model.rope.pairing",
                                            [](RunConfig& c) -> RopePairing& { return c.model.rope.pairing; },
                                            "interleaved: pairs (2j, 2j+1); halves: pairs (j, j + R/2), the "
                                            "rotate_half form of Llama, GPT-NeoX, Mistral and Qwen")));
  t.push_back(later(enum_field<RopeScaling>("model.rope.scaling",
                                            [](RunConfig& c) -> RopeScaling& { return c.model.rope.scaling; },
                                            "none; linear: every frequency / factor; llama3: Llama-3.1's "
                                            "(low frequencies / factor, high kept, blended between)")));
  t.push_back(later(number_field("model.rope.factor", [](RunConfig& c) -> double& { return c.model.rope.factor; },
                                 B::above(0), "scaling: linear and llama3")));
  t.push_back(later(number_field("model.rope.low_freq_factor",
                                 [](RunConfig& c) -> double& { return c.model.rope.low_freq_factor; }, B::above(0),
                                 "scaling: llama3")));
  t.push_back(later(number_field("model.rope.high_freq_factor",
                                 [](RunConfig& c) -> double& { return c.model.rope.high_freq_factor; }, B::above(0),
                                 "scaling: llama3 (greater than low_freq_factor)")));
  t.push_back(later(int_field(
      "model.rope.original_max_positions", [](RunConfig& c) -> int& { return c.model.rope.original_max_positions; },
      B::at_least(1).up_to(1 << 30), "scaling: llama3, the context the frequencies were trained for")));
  t.push_back(enum_field<InputKind>("model.input", [](RunConfig& c) -> InputKind& { return c.model.input; },
                                    "vectors: the task's vectors go straight in (their width must equal "
                                    "d_model unless input_projection); tokens: an embedding (needs vocab_size)"));
  t.push_back(bool_field("model.input_projection", [](RunConfig& c) -> bool& { return c.model.input_projection; },
                         "a Linear task input width -> d_model before the first block"));
  t.push_back(int_field("model.vocab_size", [](RunConfig& c) -> int& { return c.model.vocab_size; },
                        B::at_least(0).up_to(kMaxVocab), "embedding rows for input: tokens"));
  t.push_back(bool_field("model.output_head", [](RunConfig& c) -> bool& { return c.model.output_head; },
                         "a final Linear d_model -> task output width"));
  auto tie = bool_field("model.tie_embeddings", [](RunConfig& c) -> bool& { return c.model.tie_embeddings; },
                        "the output head is the token embedding transposed (logits = h E^T, no bias, no "
                        "parameter of its own; GPT-2's); needs input: tokens and output_head: true");
  tie.omit_at_default = true;  // runs trained before the key existed keep their hashes
  t.push_back(tie);
  t.push_back(enum_field<ScaleKind>("model.attention.scale",
                                    [](RunConfig& c) -> ScaleKind& { return c.model.attention.scale; },
                                    "scaling of the logits (the paper uses none)"));
  t.push_back(number_field("model.attention.temperature",
                           [](RunConfig& c) -> double& { return c.model.attention.temperature; },
                           B::closed(kMinTemperature, kMaxTemperature),
                           "logits are divided by it when scale: temperature"));
  t.push_back(string_field("model.attention.normalizer.name",
                           [](RunConfig& c) -> std::string& { return c.model.attention.normalizer.name; },
                           NameList::normalizers, "a registered normalizer",
                           "row normalizer of the attention logits, by registry name; "
                           "`normalizer: relu` is short for `normalizer: {name: relu}`"));
  // Options of the normalizer plug-ins, from their registrations.
  for (auto& f : normalizer_option_fields()) t.push_back(std::move(f));
  t.push_back(bool_field("model.attention.key_bias", [](RunConfig& c) -> bool& { return c.model.attention.key_bias; },
                         "a learned key per head with value 0 (Gu et al.), attended by every query as an extra "
                         "slot before BOS; works with any normalizer; not rotated by rope"));
  t.push_back(later(bool_field("model.attention.qk_norm",
                               [](RunConfig& c) -> bool& { return c.model.attention.qk_norm; },
                               "RMSNorm (norm_eps) of every query and key head over its width before RoPE, one "
                               "gain per coordinate shared by the heads (Qwen3)")));
  t.push_back(later(int_field("model.attention.window", [](RunConfig& c) -> int& { return c.model.attention.window; },
                              B::at_least(0).up_to(kMaxSeqLen),
                              "sliding window: query i attends keys j with i - window < j <= i (Mistral); "
                              "0 = all earlier keys; softmax only")));
  t.push_back(later(enum_field<BiasSwitch>("model.attention.qkv_bias",
                                           [](RunConfig& c) -> BiasSwitch& { return c.model.attention.qkv_bias; },
                                           "biases of W_q, W_k, W_v: as model.bias, or on / off (Qwen2: on)")));
  t.push_back(later(enum_field<BiasSwitch>("model.attention.out_bias",
                                           [](RunConfig& c) -> BiasSwitch& { return c.model.attention.out_bias; },
                                           "bias of W_O: as model.bias, or on / off")));
  t.push_back(init_from_field());

  t.push_back(string_field("task.name", [](RunConfig& c) -> std::string& { return c.task.name; }, NameList::tasks,
                           "a registered task", "the task, by name"));
  t.push_back(int_field("task.seq_len", [](RunConfig& c) -> int& { return c.task.seq_len; },
                        B::at_least(3).up_to(kMaxSeqLen),
                        "sequence length, BOS included"));
  // Options of the task plug-ins, from their registrations.
  for (auto& f : task_option_fields()) t.push_back(std::move(f));
  t.push_back(int_field("task.eval_samples", [](RunConfig& c) -> int& { return c.task.eval_samples; },
                        B::at_least(1).up_to(kMaxEvalSamples), "size of the fixed evaluation set"));
  t.push_back(int_field("task.eval_seq_len", [](RunConfig& c) -> int& { return c.task.eval_seq_len; },
                        B::at_least(0).up_to(kMaxSeqLen),
                        "length of the evaluation set, BOS included; 0 = seq_len. Another length measures "
                        "length generalization (positions must not be learned)"));
  t.push_back(unsigned_field("task.eval_seed", [](RunConfig& c) -> uint64_t& { return c.task.eval_seed; },
                             "seed of the fixed evaluation set"));

  t.push_back(enum_field<OptimizerKind>("optimizer.name",
                                        [](RunConfig& c) -> OptimizerKind& { return c.optimizer.name; },
                                        "the optimizer"));
  t.push_back(number_field("optimizer.lr", [](RunConfig& c) -> double& { return c.optimizer.lr; }, B::above(0),
                           "peak learning rate"));
  t.push_back(number_field("optimizer.beta1", [](RunConfig& c) -> double& { return c.optimizer.beta1; },
                           B::closed_open(0, 1), "Adam first-moment decay (adam, adamw)"));
  t.push_back(number_field("optimizer.beta2", [](RunConfig& c) -> double& { return c.optimizer.beta2; },
                           B::closed_open(0, 1), "Adam second-moment decay (adam, adamw)"));
  t.push_back(number_field("optimizer.eps", [](RunConfig& c) -> double& { return c.optimizer.eps; }, B::above(0),
                           "Adam denominator epsilon (adam, adamw)"));
  t.push_back(number_field("optimizer.weight_decay", [](RunConfig& c) -> double& { return c.optimizer.weight_decay; },
                           B::at_least(0), "weight decay (decoupled for adamw)"));
  t.push_back(number_field("optimizer.momentum", [](RunConfig& c) -> double& { return c.optimizer.momentum; },
                           B::closed_open(0, 1), "SGD momentum; must stay 0 for adam and adamw"));
  t.push_back(enum_field<ScheduleKind>("optimizer.schedule",
                                       [](RunConfig& c) -> ScheduleKind& { return c.optimizer.schedule; },
                                       "warmup = linear warmup then constant; cosine = linear warmup then "
                                       "cosine decay to min_lr at train.max_steps"));
  t.push_back(int_field("optimizer.warmup_steps", [](RunConfig& c) -> int& { return c.optimizer.warmup_steps; },
                        B::at_least(0), "steps of linear warmup (warmup, cosine)"));
  t.push_back(number_field("optimizer.min_lr", [](RunConfig& c) -> double& { return c.optimizer.min_lr; },
                           B::at_least(0), "final learning rate of cosine; at most lr"));
  t.push_back(number_field("optimizer.clip_grad_norm",
                           [](RunConfig& c) -> double& { return c.optimizer.clip_grad_norm; }, B::at_least(0),
                           "clip the global gradient norm to this; 0 = off"));

  t.push_back(int_field("train.batch_size", [](RunConfig& c) -> int& { return c.train.batch_size; },
                        B::at_least(1).up_to(kMaxBatch), "fresh samples per step"));
  auto shards = int_field(
      "train.batch_shards", [](RunConfig& c) -> int& { return c.train.batch_shards; }, B::at_least(1).up_to(kMaxBatch),
      "the batch as this many equal shards, each its own forward and backward, their gradients summed in "
      "shard order and the loss averaged over shards: less memory per pass, and what `sinklab train --mpi` "
      "spreads over its ranks (a run over R ranks is bit-identical to one process with the same shards); "
      "must divide batch_size");
  shards.omit_at_default = true;  // runs trained before the key existed keep their hashes
  t.push_back(shards);
  t.push_back(int_field("train.max_steps", [](RunConfig& c) -> int& { return c.train.max_steps; }, B::at_least(1),
                        "stop after this many steps"));
  t.push_back(number_field("train.stop_max_abs_error",
                           [](RunConfig& c) -> double& { return c.train.stop_max_abs_error; }, B::at_least(0),
                           "stop when the step's error over its own batch is below this: max |pred - y| for vector "
                           "(MSE) tasks, the share of wrongly predicted tokens (token error rate) for token tasks; "
                           "0 = off"));
  t.push_back(number_field("train.stop_loss", [](RunConfig& c) -> double& { return c.train.stop_loss; },
                           B::at_least(0), "stop when the training loss is below this; 0 = off"));
  t.push_back(int_field(
      "train.eval_every", [](RunConfig& c) -> int& { return c.train.eval_every; }, B::at_least(0),
      "steps between evaluations on the fixed set, whether or not log_every logs the step (it then does); 0 = only at "
      "the end"));
  t.push_back(int_field("train.log_every", [](RunConfig& c) -> int& { return c.train.log_every; }, B::at_least(1),
                        "steps between metrics.jsonl lines and progress updates (an evaluating step has a line too, "
                        "and so has the run's last step, max_steps - 1 or the step a stop rule ended it at); from 50 "
                        "on, the first 5 x log_every steps log every log_every / 10 steps, so early sink formation "
                        "has ~50 points"));
  t.push_back(int_field("train.checkpoint_every", [](RunConfig& c) -> int& { return c.train.checkpoint_every; },
                        B::at_least(0), "steps between checkpoints; 0 = by wall time only (train.checkpoint_seconds)"));
  t.push_back(number_field(
      "train.checkpoint_seconds", [](RunConfig& c) -> double& { return c.train.checkpoint_seconds; }, B::at_least(0),
      "also checkpoint when this much wall time passed since the last checkpoint, so a killed run "
      "loses at most about this much training; 0 = off"));
  t.push_back(later(enum_field<MatmulPrecision>(
      "train.precision", [](RunConfig& c) -> MatmulPrecision& { return c.train.precision; },
      "matrix products of the training steps: float32, or bf16 (inputs rounded to bf16, float32 accumulation and "
      "results; master weights, optimizer state, norms, softmax, attention's own kernels and losses stay float32); "
      "evaluations always run in float32; bf16 is native on CPUs with AVX512_BF16 or AMX and emulated (same sums, "
      "slower than float32) elsewhere, with a note at start-up")));

  t.push_back(number_field("analysis.sink_eps", [](RunConfig& c) -> double& { return c.analysis.sink_eps; },
                           B::open(0, 1), "threshold eps of the Sink_k^eps statistic"));
  auto attention_samples =
      int_field("analysis.eval_attention_samples",
                [](RunConfig& c) -> int& { return c.analysis.eval_attention_samples; },
                B::at_least(1).up_to(kMaxEvalSamples),
                "evaluation inputs used for attention maps and sink statistics");
  attention_samples.allowed = "1 .. task.eval_samples";
  t.push_back(attention_samples);
  t.push_back(int_field(
      "analysis.snapshot_every", [](RunConfig& c) -> int& { return c.analysis.snapshot_every; }, B::at_least(0),
      "steps between attention snapshots at the start of a run (every head's mean map over "
      "analysis.snapshot_samples evaluation inputs and input 0's map, kept in attention_snapshots.npz "
      "with one more at the final step); doubles whenever analysis.snapshot_limit are kept; 0 = none"));
  t.push_back(int_field("analysis.snapshot_limit", [](RunConfig& c) -> int& { return c.analysis.snapshot_limit; },
                        B::at_least(0).up_to(100000),
                        "when a run holds this many attention snapshots, every second one is dropped and the interval "
                        "doubles, so a run of any length keeps between half of it and all of it; 0 = never thin"));
  auto snapshot_samples = int_field(
      "analysis.snapshot_samples", [](RunConfig& c) -> int& { return c.analysis.snapshot_samples; },
      B::at_least(1).up_to(kMaxEvalSamples),
      "evaluation inputs averaged into each attention snapshot's mean map (unset: 128, or train.batch_size or "
      "task.eval_samples when smaller)");
  snapshot_samples.allowed = "1 .. task.eval_samples";
  t.push_back(snapshot_samples);
  t.push_back(later(int_field(
      "analysis.gu_windows", [](RunConfig& c) -> int& { return c.analysis.gu_windows; },
      B::at_least(0).up_to(100000),
      "text_lm: windows of Gu et al.'s protocol (T 64 from the training part, with BOS and without) that every "
      "evaluation runs for gu_sink_rate and extreme_tokens.gu_*; its cost grows with them; 0 = none")));
  t.push_back(later(int_field(
      "analysis.extreme_token_samples", [](RunConfig& c) -> int& { return c.analysis.extreme_token_samples; },
      B::at_least(1).up_to(kMaxEvalSamples),
      "the first min(this, analysis.eval_attention_samples) evaluation inputs feed every evaluation's "
      "extreme-token statistics (extreme_tokens.eval: massive activations, value drains, alpha_k); their cost, a "
      "median over every |h| of every block, grows with them")));
  return t;
}

std::vector<SectionSpec> build_sections() {
  return {{"", "", "the run"},
          {"model", "", "the network"},
          {"model.rope", "", "rotary position embedding (positional: rope)"},
          {"model.attention", "", "attention inside every block"},
          {"model.attention.normalizer", "name", "the row normalizer; a plain string is its name"},
          {"task", "", "the data"},
          {"optimizer", "", "the optimizer and learning-rate schedule"},
          {"train", "", "the training loop"},
          {"analysis", "", "attention statistics"}};
}

std::string_view parent_of(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
}

}  // namespace

const std::vector<FieldSpec>& config_fields() {
  static const std::vector<FieldSpec> fields = [] {
    std::vector<FieldSpec> built = build_fields();
    // A plug-in option named like a generic key (a task option `seq_len`) would be shadowed silently.
    for (std::size_t i = 0; i < built.size(); ++i)
      for (std::size_t j = i + 1; j < built.size(); ++j)
        if (built[i].path == built[j].path)
          throw std::logic_error("config key " + built[i].path + " is declared twice");
    return built;
  }();
  return fields;
}

const std::vector<SectionSpec>& config_sections() {
  static const std::vector<SectionSpec> sections = build_sections();
  return sections;
}

const FieldSpec* find_field(std::string_view path) {
  for (const auto& f : config_fields()) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

const SectionSpec* find_section(std::string_view path) {
  for (const auto& s : config_sections()) {
    if (s.path == path) return &s;
  }
  return nullptr;
}

std::vector<std::string> child_keys(std::string_view section_path) {
  std::vector<std::string> keys;
  const auto add = [&](std::string_view path) {
    if (path.empty() || parent_of(path) != section_path) return;
    const std::string key(path.substr(section_path.empty() ? 0 : section_path.size() + 1));
    for (const auto& k : keys) {
      if (k == key) return;
    }
    keys.push_back(key);
  };
  for (const auto& f : config_fields()) {
    // A field deep below contributes the sub-section on the way to it, in table order.
    for (std::string_view p = f.path; !p.empty(); p = parent_of(p)) add(p);
  }
  return keys;
}

}  // namespace sinklab
