#include "config_loading/config_consistency.h"

#include <algorithm>

#include "config_loading/closest_match.h"
#include "config_loading/config_schema.h"
#include "data/task_registry.h"

namespace sinklab {
namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }
std::string str(int v) { return std::to_string(v); }

void check_registered(const std::string& path, const std::string& value, const std::vector<std::string>& known,
                      const char* what, const KeyLocations& where) {
  if (known.empty() || std::find(known.begin(), known.end(), value) != known.end()) return;
  std::string message = "unknown " + std::string(what) + " " + quoted(value) + "; known: " + join_names(known);
  if (const auto guess = closest_match(value, known)) message += "; did you mean " + quoted(*guess) + "?";
  throw where.error(path, message);
}

// The keys the open checkpoints' architectures brought (models/open_models/).
void check_open_model_keys(const ModelConfig& m, const KeyLocations& where) {
  if (m.kv_heads > 0 && m.heads % m.kv_heads != 0)
    throw where.error_at_first_set({"model.kv_heads", "model.heads"},
                                   "kv_heads must divide heads (query head h reads key/value head h / (heads / "
                                   "kv_heads)), but " + str(m.kv_heads) + " does not divide " + str(m.heads));
  if (m.kv_heads > 0 && m.kv_heads != m.heads && m.attention.key_bias)
    throw where.error_at_first_set({"model.attention.key_bias", "model.kv_heads"},
                                   "key_bias keeps one learned key per query head and is not built with "
                                   "grouped-query attention (kv_heads < heads)");
  const RopeConfig& r = m.rope;
  const bool rope_set = r != RopeConfig{};
  if (rope_set && m.positional != Positional::rope)
    throw where.error_at_first_set({"model.rope.theta", "model.rope.dims", "model.rope.pairing", "model.rope.scaling",
                                    "model.rope.factor", "model.rope.low_freq_factor", "model.rope.high_freq_factor",
                                    "model.rope.original_max_positions", "model.positional"},
                                   "model.rope.* shapes the rotary embedding, which only positional: rope uses");
  if (r.dims % 2 != 0 || r.dims > resolved_head_dim(m))
    throw where.error_at_first_set({"model.rope.dims", "model.head_dim", "model.d_model"},
                                   "rope.dims must be even and at most the head width (" +
                                       str(resolved_head_dim(m)) + "), got " + str(r.dims));
  if (r.scaling == RopeScaling::none && r.factor != 1)
    throw where.error_at_first_set({"model.rope.factor", "model.rope.scaling"},
                                   "rope.factor stretches the frequencies only with scaling: linear or llama3");
  if (r.scaling == RopeScaling::llama3 && r.high_freq_factor <= r.low_freq_factor)
    throw where.error_at_first_set({"model.rope.high_freq_factor", "model.rope.low_freq_factor"},
                                   "rope.high_freq_factor must be greater than rope.low_freq_factor");
  if (m.position_offset > 0 && m.positional != Positional::learned)
    throw where.error_at_first_set({"model.position_offset", "model.positional"},
                                   "position_offset shifts the rows of learned positions; positional is " +
                                       std::string(to_string(m.positional)));
  if (m.parallel_residual && (!m.residual || m.mlp_hidden == 0))
    throw where.error_at_first_set({"model.parallel_residual", "model.residual", "model.mlp_hidden"},
                                   "parallel_residual adds attention and MLP to the same residual: it needs "
                                   "residual: true and mlp_hidden > 0");
  if (m.mlp_gated && m.mlp_hidden == 0)
    throw where.error_at_first_set({"model.mlp_gated", "model.mlp_hidden"}, "mlp_gated needs an MLP (mlp_hidden > 0)");
  if (m.attention.window > 0 && m.attention.normalizer.name != "softmax")
    throw where.error_at_first_set({"model.attention.window", "model.attention.normalizer.name"},
                                   "a sliding window masks keys with -inf before the normalizer, which only "
                                   "softmax maps to 0; the normalizer is " + quoted(m.attention.normalizer.name));
  if (m.attention.window > 0 && m.attention.key_bias)
    throw where.error_at_first_set({"model.attention.window", "model.attention.key_bias"},
                                   "a sliding window is not built with the key-bias token");
}

void check_model(const ModelConfig& m, const KeyLocations& where) {
  if (m.attention.scale != ScaleKind::temperature && m.attention.temperature != 1.0)
    throw where.error_at_first_set({"model.attention.temperature", "model.attention.scale"},
                                   "model.attention.temperature divides the logits only with scale: temperature; "
                                   "scale: " + std::string(to_string(m.attention.scale)) +
                                       " ignores it (leave it at 1, or set scale: temperature)");
  if (m.head_dim.mode == HeadDimMode::split && m.d_model % m.heads != 0) {
    throw where.error_at_first_set({"model.heads", "model.d_model", "model.head_dim"},
                                   "head_dim: split needs heads to divide d_model, but " + str(m.heads) +
                                       " heads do not divide d_model " + str(m.d_model));
  }
  if (m.positional == Positional::rope && resolved_head_dim(m) % 2 != 0) {
    throw where.error_at_first_set({"model.positional", "model.head_dim", "model.d_model", "model.heads"},
                                   "rope rotates coordinate pairs and needs an even head width, but the head "
                                   "width is " + str(resolved_head_dim(m)));
  }
  check_open_model_keys(m, where);
  if (m.tie_embeddings && (m.input != InputKind::tokens || !m.output_head)) {
    throw where.error_at_first_set({"model.tie_embeddings", "model.input", "model.output_head"},
                                   "tie_embeddings reuses the token embedding as the output head: it needs "
                                   "input: tokens and output_head: true");
  }
  if (m.input == InputKind::tokens && m.vocab_size < 1) {
    throw where.error_at_first_set({"model.vocab_size", "model.input"},
                                   "input: tokens needs vocab_size >= 1 (the embedding's rows)");
  }
}

// A task's message may start with its key ("task.corpus: ..."), which the location prefix names already.
std::string without_key_prefix(const std::string& message, const std::vector<std::string>& keys) {
  for (const std::string& key : keys)
    if (message.rfind(key + ": ", 0) == 0) return message.substr(key.size() + 2);
  return message;
}

// Builds the task (its own checks name their keys) and checks that the model can read its inputs and
// produce its outputs, before anything big is allocated.
void check_task(const RunConfig& c, const KeyLocations& where) {
  const TaskConfig& t = c.task;
  const ModelConfig& m = c.model;
  TaskShape s;
  try {
    s = task_shape_of(t, m.residual);
  } catch (const TaskError& e) {
    if (e.keys().empty()) throw where.error("task.name", e.what());
    throw where.error_at_first_set(e.keys(), without_key_prefix(e.what(), e.keys()));
  }
  const std::string& width = s.width_key;
  if (s.input == TaskInput::vectors && m.input == InputKind::tokens) {
    throw where.error_at_first_set({"model.input", "task.name"},
                                   "the " + t.name + " task produces vectors; use input: vectors");
  }
  if (s.input == TaskInput::tokens && m.input == InputKind::vectors) {
    throw where.error_at_first_set({"model.input", "task.name"},
                                   "the " + t.name + " task produces token ids; use input: tokens");
  }
  if (s.input == TaskInput::vectors && !m.input_projection && m.d_model != s.input_dim) {
    throw where.error_at_first_set({"model.d_model", width, "model.input_projection"},
                                   "with input: vectors and no input_projection, d_model (" + str(m.d_model) +
                                       ") must equal " + width + " (" + str(s.input_dim) +
                                       "); set model.input_projection: true or make them equal");
  }
  if (s.input == TaskInput::tokens && m.vocab_size != s.input_dim) {
    throw where.error_at_first_set(
        {"model.vocab_size", width},
        "the embedding needs one row per token id: model.vocab_size must equal " +
            (s.width_text.empty() ? width + " (" + str(s.input_dim) + ")"
                                  : str(s.input_dim) + " (" + width + ": " + s.width_text + ")") +
            ", got " + str(m.vocab_size));
  }
  if (!m.output_head && m.d_model != s.output_dim) {
    throw where.error_at_first_set({"model.output_head", "model.d_model", width},
                                   "without output_head the model's output width is d_model (" + str(m.d_model) +
                                       ") but the task's target width is " + width + " (" + str(s.output_dim) +
                                       "); set model.output_head: true");
  }
}

// task.eval_seq_len: the evaluation set's task must build at that length, and the model must run it.
void check_eval_length(const RunConfig& c, const KeyLocations& where) {
  const TaskConfig& t = c.task;
  if (t.eval_seq_len == 0 || t.eval_seq_len == t.seq_len) return;
  if (t.eval_seq_len > t.seq_len && c.model.positional == Positional::learned) {
    throw where.error_at_first_set({"task.eval_seq_len", "model.positional"},
                                   "learned positions have no embedding beyond the training length " +
                                       str(t.seq_len) + ", so the model cannot be evaluated at " +
                                       str(t.eval_seq_len) + "; use positional: none, sinusoidal or rope");
  }
  try {
    task_shape_of(evaluation_task_config(t), c.model.residual);
  } catch (const TaskError& e) {
    throw where.error("task.eval_seq_len", "the task cannot be evaluated at length " + str(t.eval_seq_len) + ": " +
                                               e.what());
  }
}

void check_optimizer(const RunConfig& c, const KeyLocations& where) {
  const OptimizerConfig& o = c.optimizer;
  if (o.name != OptimizerKind::sgd && o.momentum != 0.0) {
    throw where.error_at_first_set({"optimizer.momentum", "optimizer.name"},
                                   "momentum is an sgd setting; " + std::string(to_string(o.name)) +
                                       " uses beta1 instead (leave momentum at 0)");
  }
  // Settings the schedule never reads: set to anything but their default, they would pass unnoticed.
  if (o.schedule == ScheduleKind::constant && o.warmup_steps != 0)
    throw where.error_at_first_set({"optimizer.warmup_steps", "optimizer.schedule"},
                                   "warmup_steps applies to schedule: warmup or cosine; schedule: constant ignores it "
                                   "(leave it at 0, or choose a schedule)");
  if (o.schedule != ScheduleKind::cosine && o.min_lr != 0.0)
    throw where.error_at_first_set({"optimizer.min_lr", "optimizer.schedule"},
                                   "min_lr is where cosine decays to; schedule: " + std::string(to_string(o.schedule)) +
                                       " ignores it (leave it at 0, or use schedule: cosine)");
  if (o.schedule == ScheduleKind::cosine) {
    if (o.min_lr > o.lr) {
      throw where.error_at_first_set({"optimizer.min_lr", "optimizer.lr"},
                                     "cosine decays from lr to min_lr, so min_lr must be <= lr (" +
                                         format_number(o.lr) + "), got " + format_number(o.min_lr));
    }
    if (o.warmup_steps >= c.train.max_steps) {
      throw where.error_at_first_set({"optimizer.warmup_steps", "train.max_steps"},
                                     "cosine needs warmup_steps < train.max_steps (" + str(c.train.max_steps) +
                                         "), got " + str(o.warmup_steps));
    }
  }
}

}  // namespace

void check_consistency(const RunConfig& config, const KeyLocations& where, const ConfigVocabulary& vocab) {
  for (const auto& field : config_fields()) {
    if (!field.misplaced || !where.is_set(field.path)) continue;
    if (const std::string why = field.misplaced(config); !why.empty()) throw where.error(field.path, why);
  }
  check_registered("model.attention.normalizer.name", config.model.attention.normalizer.name, vocab.normalizers,
                   "normalizer", where);
  check_registered("task.name", config.task.name, vocab.tasks, "task", where);
  check_model(config.model, where);
  check_task(config, where);
  check_eval_length(config, where);
  check_optimizer(config, where);
  if (config.train.batch_size % config.train.batch_shards != 0) {
    throw where.error_at_first_set({"train.batch_shards", "train.batch_size"},
                                   "train.batch_shards (" + str(config.train.batch_shards) +
                                       ") must divide train.batch_size (" + str(config.train.batch_size) +
                                       ") into equal shards");
  }
  if (config.analysis.eval_attention_samples > config.task.eval_samples) {
    throw where.error_at_first_set({"analysis.eval_attention_samples", "task.eval_samples"},
                                   "analysis.eval_attention_samples (" +
                                       str(config.analysis.eval_attention_samples) +
                                       ") must be at most task.eval_samples (" + str(config.task.eval_samples) + ")");
  }
  if (config.analysis.snapshot_samples > config.task.eval_samples) {
    throw where.error_at_first_set({"analysis.snapshot_samples", "task.eval_samples"},
                                   "analysis.snapshot_samples (" + str(config.analysis.snapshot_samples) +
                                       ") must be at most task.eval_samples (" + str(config.task.eval_samples) + ")");
  }
  if (config.analysis.snapshot_limit == 1) {
    throw where.error_at_first_set(
        {"analysis.snapshot_limit"},
        "analysis.snapshot_limit is 1: thinning keeps every second snapshot, so it must be 0 "
        "(never thin) or at least 2");
  }
}

}  // namespace sinklab
