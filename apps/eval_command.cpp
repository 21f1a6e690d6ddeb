// `sinklab eval RUN_DIR|CHECKPOINT [--ablate MODE] [--heads all|L0H1,L1H0] [--eval-trigger J] [--seq-len T]
// [--samples N] [--out FILE]`
// `sinklab eval RUN_DIR|CHECKPOINT --stream --window W[,W..] [--keep-first K[,K..]] [--tokens N] [--out FILE]`
// The first evaluates a trained model on its task's fixed evaluation set, optionally
// with the BOS key ablated in some heads (layers/attention_ablation.h), next to the unablated model in
// the same invocation. Writes RUN_DIR/eval/<mode>[_<heads>][_j<J>][_T<T>][_n<N>].json (the suffixes only
// for what differs from the run's own evaluation; --out FILE instead) and prints a summary table.
// docs/reproducing-sinks.md, "Ablating the sink", describes the file. The second is the streaming
// evaluation of a text_lm run (apps/eval_stream.h).
// `sinklab eval MODEL_DIR --text FILE|--tokens ids.npy [--seq-len T] [--windows N] [--threads N] ...` runs the
// same analysis on a Hugging Face model folder (apps/eval_open_model.h): windows of a text instead of the
// run's evaluation set, written to eval-<folder>[-<mode>].json in the current directory.
// --head-ablation adds, for runs and model folders, the loss change of masking the BOS key in each head alone.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/commands.h"
#include "apps/eval_open_model.h"
#include "apps/eval_stream.h"
#include "apps/flag_integer.h"
#include "apps/model_for_length.h"
#include "config_loading/memory_estimate.h"
#include "core/io/file_write.h"
#include "core/thread_count.h"
#include "data/eval_set.h"
#include "data/task_registry.h"
#include "models/evaluation.h"
#include "models/extreme_token_evaluation.h"
#include "models/massive_activation_intervention.h"
#include "models/model_loader.h"
#include "models/sink_evaluation.h"
#include "models/token_window_eval_set.h"
#include "run_files/extreme_token_table.h"
#include "run_files/extreme_tokens_json.h"
#include "run_files/run_summary.h"
#include "train/evaluation_pipeline.h"
#include "run_files/output_path.h"

namespace sinklab::apps {
namespace {

namespace fs = std::filesystem;

struct EvalFlags {
  std::string run;
  std::string ablate = "none";
  std::string heads = "all";
  std::optional<std::string> eval_trigger, seq_len, samples;  // as typed; checked here (exit 2)
  std::string out;
  // Sun et al.'s intervention on massive activations (models/massive_activation_intervention.h).
  std::optional<std::string> massive, massive_layer, massive_position, massive_top_k;
  bool head_ablation = false;  // every head's BOS key masked in turn, the loss change of each
  // A model folder (apps/eval_open_model.h): the text and how it is cut.
  std::optional<std::string> text, ids, windows;
  int threads = 0;
  std::optional<std::string> explore_window;  // whose attention the explorer's file holds (default 0)
};

// The task config of this evaluation: the run's evaluation set (task.eval_seq_len applied), with
// --eval-trigger, --seq-len and --samples applied.
TaskConfig eval_task_config(const RunConfig& c, const EvalFlags& f) {
  TaskConfig t = evaluation_task_config(c.task);
  if (f.samples) t.eval_samples = flag_integer("--samples", *f.samples, 1, 1000000);
  if (f.seq_len) t = task_config_at_length(t, flag_integer("--seq-len", *f.seq_len, 1, 65536));
  if (f.eval_trigger) {
    if (!task_declares_option(t.name, "eval_trigger"))
      throw std::invalid_argument("--eval-trigger: task " + t.name + " has no trigger position (task.eval_trigger)");
    t.options.set("eval_trigger", int64_t{flag_integer("--eval-trigger", *f.eval_trigger, 0, 65535)});
  }
  return t;
}

std::string evaluation_flags_text(const EvalFlags& f) {
  std::string text;
  if (f.eval_trigger) text += " --eval-trigger " + *f.eval_trigger;
  if (f.seq_len) text += " --seq-len " + *f.seq_len;
  return text;
}

// The evaluation set and one chunk of forward passes at its length must fit in memory (refused up front,
// naming the flags, instead of std::bad_alloc or the OOM killer).
void check_evaluation_memory(const RunConfig& c, const TaskConfig& t) {
  RunConfig sized = c;
  sized.task = t;
  sized.task.eval_seq_len = 0;
  sized.train.batch_size = 1;  // no training step here
  const std::optional<double> available = available_memory();
  const MemoryEstimate e = estimate_memory(sized);
  if (available && e.total() > *available)
    throw std::invalid_argument(
        "the evaluation of " + std::to_string(t.eval_samples) + " inputs of length " + std::to_string(t.seq_len) +
        " needs an estimated " + format_bytes(e.total()) + ", more than the " + format_bytes(*available) +
        " available (MemAvailable, or the cgroup's limit when lower): lower --samples or --seq-len");
}

// The run's evaluation pipeline (train/evaluation_pipeline.h) at the flags' task config. The task must take
// the evaluation's trigger and length (its own message, prefixed with the flags), and the set must fit.
std::unique_ptr<EvaluationPipeline> eval_pipeline(const RunConfig& c, const TaskConfig& t, const EvalFlags& f) {
  // TaskError, or std::logic_error from an option's declared bounds (--eval-trigger 0): the flags' fault.
  const auto with_flags = [&f](const std::exception& e) {
    const std::string flags = evaluation_flags_text(f);
    return flags.empty() ? std::string() : "the task cannot be evaluated with" + flags + ": " + e.what();
  };
  try {
    (void)task_shape_of(t, c.model.residual);  // refused naming the flags before the memory check builds it
  } catch (const TaskError& e) {
    if (const std::string message = with_flags(e); !message.empty()) throw std::invalid_argument(message);
    throw;
  } catch (const std::logic_error& e) {
    if (const std::string message = with_flags(e); !message.empty()) throw std::invalid_argument(message);
    throw;
  }
  check_evaluation_memory(c, t);
  return std::make_unique<EvaluationPipeline>(c, t);
}

using Evaluation = SinkEvaluation;

// One evaluation of the model as it is set, with `ablation`: a run's through its evaluation pipeline, a
// model folder's on its text windows.
using SetEvaluation = std::function<Evaluation(Model&, const AttentionAblation&)>;

// `hooks` (or none) edit activations during the evaluation: the massive-activation intervention.
Evaluation evaluate(Model& model, const SetEvaluation& on_set, const AttentionAblation& ablation,
                    ActivationHooks* hooks = nullptr) {
  struct ScopedHooks {
    Transformer& t;
    ~ScopedHooks() { t.set_hooks(nullptr); }
  } scoped{model.transformer()};
  model.transformer().set_hooks(hooks);
  return on_set(model, ablation);
}

// |W_O^h W_V^h e_0|_inf per head, layer-major: what the BOS input vector e_0 (position 0 of the
// evaluation input) adds to a head's output per unit of BOS weight, from the weights (with W_V's bias
// when the model has one). The map of e_0 itself: exact for layer 0 of a model without an input
// projection or a norm before attention; for deeper layers it leaves out what earlier layers add to
// the BOS stream. NaN when the model does not read vectors of width d_model.
std::vector<double> bos_value_map_inf(const Model& model, const EvalSet& set) {
  const RunConfig& c = model.config();
  const int L = c.model.layers, H = c.model.heads, C = c.model.d_model;
  std::vector<double> norms(static_cast<size_t>(L * H), std::numeric_limits<double>::quiet_NaN());
  if (set.shape().input != TaskInput::vectors || c.model.input_projection || set.input_dim() != C) return norms;
  const float* e0 = set.view(0, 1).inputs;  // [input_dim]: sample 0, position 0
  const ParameterStore& p = model.parameters();
  for (int l = 0; l < L; ++l) {
    const std::string attn = "blocks." + std::to_string(l) + ".attn.";
    const Tensor w_v = p.tensor(attn + "w_v.weight");  // [H*D, C]
    const Tensor w_o = p.tensor(attn + "w_o.weight");  // [C, H*D]
    const Tensor b_v = p.contains(attn + "w_v.bias") ? p.tensor(attn + "w_v.bias") : Tensor();
    const int64_t D = w_v.dim(0) / H;
    for (int h = 0; h < H; ++h) {
      std::vector<double> v(static_cast<size_t>(D));  // W_V^h e_0 (+ b_V^h): [D]
      for (int64_t d = 0; d < D; ++d) {
        const int64_t row = h * D + d;
        double sum = b_v.defined() ? b_v.data()[row] : 0.0;
        for (int k = 0; k < C; ++k) sum += static_cast<double>(w_v.data()[row * C + k]) * e0[k];
        v[static_cast<size_t>(d)] = sum;
      }
      double inf = 0.0;
      for (int out = 0; out < C; ++out) {
        double u = 0.0;
        for (int64_t d = 0; d < D; ++d)
          u += static_cast<double>(w_o.data()[out * H * D + h * D + d]) * v[static_cast<size_t>(d)];
        inf = std::max(inf, std::fabs(u));
      }
      norms[static_cast<size_t>(l * H + h)] = inf;
    }
  }
  return norms;
}

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json numbers(const std::vector<double>& values) {
  nlohmann::json a = nlohmann::json::array();
  for (double v : values) a.push_back(number(v));
  return a;
}

nlohmann::json metrics_json(const EvalMetrics& m) {
  return {{"eval_mse", number(m.mse)},
          {"eval_loss", number(m.loss)},
          {"eval_accuracy", number(m.accuracy)},
          {"eval_max_abs_error", number(m.max_abs_error)},
          {"nontrigger_max_abs_error", number(m.no_op_max_abs_error)},
          {"trigger_max_abs_error", number(m.active_max_abs_error)},
          {"row_max_abs_error", numbers(m.row_max_abs_error)}};
}

nlohmann::json heads_json(const Evaluation& e, const AttentionAblation& ablation, const std::vector<double>& bos_map) {
  nlohmann::json heads = nlohmann::json::array();
  for (size_t i = 0; i < e.heads.size(); ++i) {
    const HeadSinkStats& s = e.heads[i];
    nlohmann::json j = s;  // every statistic of stats/head_statistics.h, under its summary.json name
    j["ablated"] = ablation.applies(s.layer, s.head);
    j["w_o_w_v_bos_inf"] = number(bos_map[i]);
    j["bos_mass_by_row"] = numbers(s.bos_mass_by_row);
    heads.push_back(std::move(j));
  }
  return heads;
}

nlohmann::json deltas_json(const EvalMetrics& ablated, const EvalMetrics& base) {
  std::vector<double> rows(ablated.row_max_abs_error.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = ablated.row_max_abs_error[i] - base.row_max_abs_error[i];
  return {{"eval_mse", number(ablated.mse - base.mse)},
          {"eval_mse_ratio", number(ablated.mse / base.mse)},
          {"eval_loss", number(ablated.loss - base.loss)},
          {"eval_accuracy", number(ablated.accuracy - base.accuracy)},
          {"eval_max_abs_error", number(ablated.max_abs_error - base.max_abs_error)},
          {"nontrigger_max_abs_error", number(ablated.no_op_max_abs_error - base.no_op_max_abs_error)},
          {"trigger_max_abs_error", number(ablated.active_max_abs_error - base.active_max_abs_error)},
          {"row_max_abs_error", numbers(rows)}};
}

// Per head, changed minus base: the sink statistics the summary table shows and the extreme-token
// alpha_k on the evaluation inputs.
nlohmann::json head_deltas_json(const Evaluation& changed, const Evaluation& base, const ExtremeTokenReport& changed_x,
                                const ExtremeTokenReport& base_x) {
  nlohmann::json heads = nlohmann::json::array();
  for (size_t i = 0; i < changed.heads.size(); ++i) {
    const HeadSinkStats& a = changed.heads[i];
    const HeadSinkStats& b = base.heads[i];
    nlohmann::json alpha = nlohmann::json::array();
    for (int k = 0; k < kFirstKeys; ++k)
      alpha.push_back(number(changed_x.eval.heads[i].alpha[static_cast<size_t>(k)] -
                             base_x.eval.heads[i].alpha[static_cast<size_t>(k)]));
    heads.push_back({{"layer", a.layer},
                     {"head", a.head},
                     {"sink_score", number(a.sink_score - b.sink_score)},
                     {"bos_mass_mean", number(a.bos_mass_mean - b.bos_mass_mean)},
                     {"bos_mass_nontrigger_mean", number(a.bos_mass_nontrigger_mean - b.bos_mass_nontrigger_mean)},
                     {"entropy_mean", number(a.entropy_mean - b.entropy_mean)},
                     {"alpha", alpha}});
  }
  return heads;
}

// The intervention's plan: the flags, or where the base evaluation found the largest activation.
MassiveIntervention massive_plan(Model& model, const EvalSet& set, const EvalFlags& f, const ExtremeTokenReport& base) {
  const MassiveMode mode = parse_massive_mode(*f.massive);
  const RunConfig& c = model.config();
  int layer = -1, position = -1;
  if (f.massive_layer) layer = flag_integer("--massive-layer", *f.massive_layer, 0, c.model.layers - 1);
  if (f.massive_position) position = flag_integer("--massive-position", *f.massive_position, 0, set.seq_len() - 1);
  const int top_k =
      f.massive_top_k ? flag_integer("--massive-top-k", *f.massive_top_k, 1, c.model.d_model) : kTopActivations;
  const std::vector<LayerExtremes>& layers = base.eval.layers;
  if (layers.empty()) throw std::invalid_argument("--massive: the model's blocks have no residual stream to change");
  if (layer < 0) {
    layer = layers.front().layer;
    double largest = -1;
    for (const LayerExtremes& l : layers)
      if (l.massive_ratio > largest) largest = l.massive_ratio, layer = l.layer;
  }
  if (position < 0)
    for (const LayerExtremes& l : layers)
      if (l.layer == layer) position = l.max_position;
  Graph g;
  const TaskObjective objective(set.shape());
  return plan_massive_intervention(g, model.transformer(), objective, set, mode, layer, std::max(position, 0), top_k);
}

nlohmann::json massive_json(const MassiveIntervention& p) {
  return {{"mode", std::string(massive_mode_name(p.mode))}, {"layer", p.layer},        {"position", p.position},
          {"channels", p.channels},                          {"mean_abs", p.mean_abs}, {"values", p.values}};
}

// One head's BOS key masked (mask_bos_key in that head only): the task's loss (MSE for MSE tasks) before
// and after.
struct HeadAblationRow {
  HeadRef head;
  double base = 0.0, ablated = 0.0;
  double delta() const { return ablated - base; }
};

double task_loss(const EvalMetrics& m, const TaskShape& shape) { return shape.loss == TaskLoss::mse ? m.mse : m.loss; }

// Every head in turn, sorted by the loss change, largest first (NaN last). No observers: the loss only.
std::vector<HeadAblationRow> head_ablation_table(Model& model, const EvalSet& set, const EvalMetrics& base) {
  const RunConfig& c = model.config();
  const TaskObjective objective(set.shape());
  std::vector<HeadAblationRow> rows;
  for (int l = 0; l < c.model.layers; ++l)
    for (int h = 0; h < c.model.heads; ++h) {
      EvalOptions options;
      options.ablation = AttentionAblation(AblationMode::mask_bos_key, {HeadRef{l, h}});
      Graph g;
      const EvalMetrics m = evaluate_model(g, model.transformer(), objective, set, {}, options);
      rows.push_back({HeadRef{l, h}, task_loss(base, set.shape()), task_loss(m, set.shape())});
    }
  std::stable_sort(rows.begin(), rows.end(), [](const HeadAblationRow& a, const HeadAblationRow& b) {
    if (std::isnan(a.delta()) || std::isnan(b.delta())) return !std::isnan(a.delta()) && std::isnan(b.delta());
    return a.delta() > b.delta();
  });
  return rows;
}

nlohmann::json head_ablation_json(const std::vector<HeadAblationRow>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const HeadAblationRow& r : rows)
    a.push_back({{"layer", r.head.layer},
                 {"head", r.head.head},
                 {"label", head_label(r.head)},
                 {"loss", number(r.ablated)},
                 {"delta_loss", number(r.delta())}});
  return a;
}

// A number of the summary table; "n/a" where it is not defined (NaN), never "nan".
std::string cell(const char* pattern, double v) {
  if (std::isnan(v)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, pattern, v);
  return text;
}

std::string head_ablation_text(const std::vector<HeadAblationRow>& rows, const TaskShape& shape) {
  const char* what = shape.loss == TaskLoss::mse ? "eval_mse" : "loss (nats)";
  std::string t = "\nhead ablation: the BOS key (position 0) masked in one head at a time (mask_bos_key), largest " +
                  std::string(what) + " change first\n";
  char line[128];
  std::snprintf(line, sizeof line, "%-8s %14s %14s\n", "head", what, "delta");
  t += line;
  for (const HeadAblationRow& r : rows) {
    std::snprintf(line, sizeof line, "%-8s %14s %14s\n", head_label(r.head).c_str(), cell("%.6f", r.ablated).c_str(),
                  cell("%+.6f", r.delta()).c_str());
    t += line;
  }
  return t;
}

// Everything one evaluation measures, on the unchanged model and with the ablation or intervention;
// the same for a run and for a model folder.
struct Analysis {
  Evaluation base, ablated;
  ExtremeTokenReport base_extremes, ablated_extremes;
  std::optional<MassiveIntervention> massive;
  std::vector<double> bos_map;
  std::optional<std::vector<HeadAblationRow>> head_ablation;
};

// `extreme_tokens` measures the model as it is set when called (ablation and hooks included).
Analysis analyse(Model& model, const EvalSet& set, const SetEvaluation& on_set, const AttentionAblation& ablation,
                 const EvalFlags& f, const std::function<ExtremeTokenReport()>& extreme_tokens) {
  if (!f.massive && (f.massive_layer || f.massive_position || f.massive_top_k))
    throw std::invalid_argument(
        "--massive-layer, --massive-position and --massive-top-k need --massive set_zero|set_mean");
  Analysis a;
  a.base = evaluate(model, on_set, AttentionAblation());
  a.base_extremes = extreme_tokens();
  if (f.massive) a.massive = massive_plan(model, set, f, a.base_extremes);
  std::optional<MassiveActivationHooks> massive_hooks;
  if (a.massive) massive_hooks.emplace(*a.massive);
  ActivationHooks* hooks = massive_hooks ? &*massive_hooks : nullptr;
  const bool changed = ablation.mode() != AblationMode::none || a.massive;
  a.ablated = changed ? evaluate(model, on_set, ablation, hooks) : a.base;
  a.ablated_extremes = a.base_extremes;
  if (changed) {  // the same changes as the evaluation above, then none again
    model.transformer().set_ablation(ablation);
    model.transformer().set_hooks(hooks);
    a.ablated_extremes = extreme_tokens();
    model.transformer().set_hooks(nullptr);
    model.transformer().set_ablation(AttentionAblation());
  }
  a.bos_map = bos_value_map_inf(model, set);
  if (f.head_ablation) a.head_ablation = head_ablation_table(model, set, a.base.metrics);
  return a;
}

// The fields every eval file has after its header.
void add_analysis_json(nlohmann::json& j, const Analysis& a, const AttentionAblation& ablation) {
  j.update(metrics_json(a.ablated.metrics));
  j["heads"] = heads_json(a.ablated, ablation, a.bos_map);
  nlohmann::json unablated = metrics_json(a.base.metrics);
  unablated["heads"] = heads_json(a.base, AttentionAblation(), a.bos_map);
  j["unablated"] = std::move(unablated);
  j["deltas"] = deltas_json(a.ablated.metrics, a.base.metrics);
  j["deltas"]["heads"] = head_deltas_json(a.ablated, a.base, a.ablated_extremes, a.base_extremes);
  j["extreme_tokens"] = extreme_tokens_json(a.ablated_extremes);
  j["unablated"]["extreme_tokens"] = extreme_tokens_json(a.base_extremes);
  j["massive"] = a.massive ? massive_json(*a.massive) : nlohmann::json();
  if (a.head_ablation) j["head_ablation"] = head_ablation_json(*a.head_ablation);
}

std::string ablation_text(const AttentionAblation& ablation) {
  return ablation.mode() == AblationMode::none
             ? "no ablation"
             : std::string(ablation_mode_name(ablation.mode())) + " on " +
                   (ablation.all_heads() ? "all heads" : "heads " + ablation.heads_text());
}

std::string massive_text(const std::optional<MassiveIntervention>& massive) {
  if (!massive) return {};
  std::string t = "; massive activations " + std::string(massive_mode_name(massive->mode)) + " at layer " +
                  std::to_string(massive->layer) + ", position " + std::to_string(massive->position) + ", channels";
  for (int ch : massive->channels) t += " " + std::to_string(ch);
  return t;
}

// RUN_DIR/eval/<mode>[_<heads>][_j<J>][_T<T>][_n<N>].json
fs::path default_output(const fs::path& run_dir, const AttentionAblation& ablation, const EvalFlags& f,
                        const TaskConfig& t, const Task& task) {
  std::string name(ablation_mode_name(ablation.mode()));
  if (!ablation.all_heads()) name += "_" + ablation.heads_text("_");
  if (f.massive) name += "_massive_" + *f.massive;
  if (f.eval_trigger) name += "_j" + std::to_string(task.fixed_eval_row());
  if (f.seq_len) name += "_T" + std::to_string(t.seq_len);
  if (f.samples) name += "_n" + std::to_string(t.eval_samples);
  std::error_code ec;  // a link planted in the run folder would send the default output elsewhere
  if (fs::is_symlink(run_dir / "eval", ec))
    throw std::invalid_argument(
        (run_dir / "eval").string() +
        " is a symbolic link; the default output goes only into a real folder (remove the link, or give --out)");
  return run_dir / "eval" / (name + ".json");
}

std::string joined_command_line() {
  std::string text;
  for (const std::string& w : command_line()) text += (text.empty() ? "" : " ") + w;
  return text;
}

// The task's own metrics: an MSE task's errors, a token task's loss and accuracy. A row the task
// defines but whose rows it does not flag (no no-op rows) reads n/a, with the reason under the table.
void print_metric_rows(const TaskShape& shape, const EvalMetrics& base, const EvalMetrics& ablated) {
  bool undefined = false;
  const auto row = [&undefined](const char* name, double a, double b) {
    undefined = undefined || std::isnan(a) || std::isnan(b);
    std::printf("%-26s %12s %12s %12s\n", name, cell("%.4e", a).c_str(), cell("%.4e", b).c_str(),
                cell("%+.4e", b - a).c_str());
  };
  if (shape.loss == TaskLoss::mse) {
    row("eval_mse", base.mse, ablated.mse);
    row("eval_max_abs_error", base.max_abs_error, ablated.max_abs_error);
    row("non-trigger max |error|", base.no_op_max_abs_error, ablated.no_op_max_abs_error);
    row("trigger row max |error|", base.active_max_abs_error, ablated.active_max_abs_error);
  } else {
    row("eval_loss (nats)", base.loss, ablated.loss);
    row("eval_accuracy", base.accuracy, ablated.accuracy);
    row("active-row loss (nats)", base.active_loss, ablated.active_loss);
    row("no-op-row loss (nats)", base.no_op_loss, ablated.no_op_loss);
  }
  if (undefined)
    std::printf("(n/a: the task flags no such rows, or the evaluation's outputs are not finite)\n");
}

void print_summary(const std::string& what, const TaskShape& shape, const Evaluation& base, const Evaluation& ablated,
                   const std::vector<double>& bos_map, const AttentionAblation& ablation, const fs::path& out) {
  std::printf("%s\n", what.c_str());
  std::printf("%-26s %12s %12s %12s\n", "", "unablated", "ablated", "delta");
  print_metric_rows(shape, base.metrics, ablated.metrics);
  // Tasks without no-op rows (language models): alpha_0 and BOS@all instead of the no-op and trigger rows.
  const bool no_op_rows = !base.heads.empty() && !std::isnan(base.heads[0].bos_mass_nontrigger_mean);
  std::printf("\n%-6s %-8s %22s %22s %14s\n", "head", "ablated",
              no_op_rows ? "BOS@non-trig (base->)" : "alpha_0 (base->)",
              no_op_rows ? "trig BOS (base->)" : "BOS@all (base->)", "|WoWv e0|inf");
  for (size_t i = 0; i < ablated.heads.size(); ++i) {
    const HeadSinkStats& a = ablated.heads[i];
    const HeadSinkStats& b = base.heads[i];
    std::printf("%-6s %-8s %10s->%-10s %10s->%-10s %14s\n", head_label({a.layer, a.head}).c_str(),
                ablation.applies(a.layer, a.head) ? "yes" : "no",
                cell("%.4f", no_op_rows ? b.bos_mass_nontrigger_mean : b.sink_score).c_str(),
                cell("%.4f", no_op_rows ? a.bos_mass_nontrigger_mean : a.sink_score).c_str(),
                cell("%.4f", no_op_rows ? b.trigger_bos : b.bos_mass_mean).c_str(),
                cell("%.4f", no_op_rows ? a.trigger_bos : a.bos_mass_mean).c_str(), cell("%.4e", bos_map[i]).c_str());
  }
  std::printf("wrote %s\n", out.string().c_str());
}

void run_eval(const EvalFlags& f) {
  const AblationMode mode = parse_ablation_mode(f.ablate);  // before anything is loaded
  const fs::path given(f.run);
  std::unique_ptr<Model> model = load_model(given);
  const RunConfig c = model->config();  // a copy: model_for_length may replace the model
  const AttentionAblation ablation(mode, parse_head_list(f.heads, c.model.layers, c.model.heads));
  if (mode == AblationMode::none && !ablation.all_heads())
    throw std::invalid_argument("--heads: --ablate none ablates no head; leave --heads out");
  const TaskConfig t = eval_task_config(c, f);
  const fs::path run_dir = fs::is_directory(given) ? given : given.parent_path();
  if (!f.out.empty()) check_output_path(f.out, OutputKind::file, "--out");
  const std::unique_ptr<EvaluationPipeline> pipeline = eval_pipeline(c, t, f);
  const Task* const task = &pipeline->task();
  const TaskShape shape = task->shape();
  if (shape.input_dim != model->shape().input_dim || shape.output_dim != model->shape().output_dim)
    throw std::invalid_argument("the task's widths changed with" + evaluation_flags_text(f));
  model = model_for_length(std::move(model), shape.seq_len, "--seq-len " + std::to_string(shape.seq_len));
  const EvalSet& set = pipeline->set();
  Graph graph;
  // The trainer's evaluation (train/evaluation_pipeline.h), with per-row errors: `none` gives the run's own bits.
  const SetEvaluation on_set = [&](Model& m, const AttentionAblation& with) {
    EvaluationRequest request;
    request.row_errors = true;
    request.ablation = with;
    return pipeline->evaluate(graph, m, request);
  };
  const Analysis a = analyse(*model, set, on_set, ablation, f, [&] { return pipeline->extreme_tokens(graph, *model); });

  fs::path out = f.out.empty() ? default_output(run_dir, ablation, f, t, *task) : fs::path(f.out);
  nlohmann::json j = {
      {"command", joined_command_line()},
      {"run", run_dir.string()},
      {"checkpoint", (fs::is_directory(given) ? given / "checkpoint.bin" : given).string()},
      {"mode", std::string(ablation_mode_name(mode))},
      {"ablated_heads", ablation.all_heads() ? nlohmann::json("all") : nlohmann::json::array()},
      {"normalizer", c.model.attention.normalizer.name},
      {"layers", c.model.layers},
      {"heads_per_layer", c.model.heads},
      {"seq_len", shape.seq_len},
      {"eval_trigger", task->fixed_eval_row() >= 0 ? nlohmann::json(task->fixed_eval_row()) : nlohmann::json()},
      {"samples", set.size()},
      {"attention_samples", std::min(set.size(), c.analysis.eval_attention_samples)},
      {"sink_eps", c.analysis.sink_eps},
  };
  if (!ablation.all_heads())
    for (const HeadRef& h : ablation.heads()) j["ablated_heads"].push_back(head_label(h));
  add_analysis_json(j, a, ablation);
  if (!out.parent_path().empty()) fs::create_directories(out.parent_path());
  write_file_atomically(out, j.dump(2) + '\n');

  std::string what = "eval " + f.run + ": " + ablation_text(ablation) + " (" + c.model.attention.normalizer.name +
                     ", " + std::to_string(c.model.layers) + " layer(s) x " + std::to_string(c.model.heads) +
                     " head(s)), " + std::to_string(set.size()) + " inputs, T = " + std::to_string(shape.seq_len);
  if (task->fixed_eval_row() >= 0) what += ", trigger j = " + std::to_string(task->fixed_eval_row());
  what += massive_text(a.massive);
  print_summary(what, shape, a.base, a.ablated, a.bos_map, ablation, out);
  std::printf("%s", format_extreme_token_table(a.ablated_extremes).c_str());
  if (a.head_ablation) std::printf("%s", head_ablation_text(*a.head_ablation, set.shape()).c_str());
}

// `sinklab eval MODEL_DIR`: the same analysis on windows of a text read by a Hugging Face model folder.
void run_model_eval(const EvalFlags& f) {
  const AblationMode mode = parse_ablation_mode(f.ablate);  // before anything is loaded
  for (const auto& [flag, given] :
       {std::pair{"--eval-trigger", f.eval_trigger.has_value()}, std::pair{"--samples", f.samples.has_value()}})
    if (given)
      throw std::invalid_argument(std::string(flag) +
                                  " applies to a run's evaluation set; a model folder reads --windows N "
                                  "windows of --seq-len T tokens of its text");
  const fs::path folder(f.run);
  // The memory check needs a window length before the context is known: the one asked for, else the
  // longest default (256); --seq-len is checked against the context once the model is read.
  const int64_t check_window =
      f.seq_len ? flag_integer("--seq-len", *f.seq_len, 2, std::numeric_limits<int>::max()) : 256;
  OpenModel m = load_model_folder(folder, f.threads > 0 ? f.threads : 1, check_window);
  Model& model = *m.model;
  const RunConfig& c = model.config();
  const int vocab = model.shape().output_dim;
  const AttentionAblation ablation(mode, parse_head_list(f.heads, c.model.layers, c.model.heads));
  if (mode == AblationMode::none && !ablation.all_heads())
    throw std::invalid_argument("--heads: --ablate none ablates no head; leave --heads out");
  const int T = model_seq_len(f.seq_len, m.context);
  const int64_t asked = model_windows(f.windows);
  std::string suffix;
  if (mode != AblationMode::none) suffix += "-" + std::string(ablation_mode_name(mode));
  if (!ablation.all_heads()) suffix += "_" + ablation.heads_text("_");
  if (f.massive) suffix += "-massive_" + *f.massive;
  const fs::path out = model_eval_output(folder, f.out, suffix);
  const OpenModelText text = read_model_text(folder, f.text, f.ids, vocab);
  const int64_t fitting = token_windows_in_stream(static_cast<int64_t>(text.ids.size()), T);
  if (fitting < 1)
    throw std::invalid_argument("the text has " + std::to_string(text.ids.size()) +
                                " tokens, fewer than one window of " + std::to_string(T) + " (--seq-len " +
                                std::to_string(T) + "); give a longer text or a smaller --seq-len");
  const int64_t windows = std::min(asked, fitting);
  const int64_t explored = explore_window(f.explore_window, windows);
  const std::vector<int32_t> packed = cut_token_windows(text.ids, windows, T, std::nullopt);
  const std::vector<int32_t> with_bos =
      text.bos ? cut_token_windows(text.ids, windows, T, text.bos) : std::vector<int32_t>();
  // With a BOS every analysis reads the BOS windows (as a run's windows start with BOS); packed windows
  // give Gu et al.'s no-BOS Sink_k.
  const EvalSet set = token_window_eval_set(text.bos ? with_bos : packed, windows, T, vocab);
  if (f.threads > 0) set_thread_count(f.threads);
  Graph graph;
  const TaskObjective objective(set.shape());
  const int all = set.size();
  const double eps = c.analysis.sink_eps;
  const bool slot = c.model.attention.key_bias;
  const SetEvaluation on_set = [&](Model& m, const AttentionAblation& with) {
    EvalOptions options;  // every window observed
    options.attention_samples = all;
    options.row_errors = true;
    options.ablation = with;
    return evaluate_with_sink_statistics(m, set, options);
  };
  const Analysis a = analyse(model, set, on_set, ablation, f, [&] {
    ExtremeTokenReport r{measure_extreme_tokens(graph, model.transformer(), objective, set, all, 250, eps, slot),
                         std::nullopt, std::nullopt};
    if (text.bos) {
      r.gu_bos = r.eval;  // the evaluation windows are the BOS windows
      r.gu_no_bos = measure_extreme_tokens(graph, model.transformer(), packed, windows, T, 250, eps, slot);
    } else {
      r.gu_no_bos = r.eval;
    }
    return r;
  });

  nlohmann::json j = {
      {"command", joined_command_line()},
      {"model", folder.string()},
      {"family", m.family},
      {"model_type", m.model_type},
      {"context", m.context},
      {"weights", m.weights},
      {"text", text.source},
      {"text_tokens", static_cast<int64_t>(text.ids.size())},
      {"bos", text.bos ? nlohmann::json(*text.bos) : nlohmann::json()},
      {"bos_source", text.bos_source},
      {"mode", std::string(ablation_mode_name(mode))},
      {"ablated_heads", ablation.all_heads() ? nlohmann::json("all") : nlohmann::json::array()},
      {"normalizer", c.model.attention.normalizer.name},
      {"layers", c.model.layers},
      {"heads_per_layer", c.model.heads},
      {"seq_len", T},
      {"windows", windows},
      {"windows_requested", asked},
      {"samples", set.size()},
      {"attention_samples", set.size()},
      {"sink_eps", eps},
      {"uniform_baseline", number(a.base_extremes.eval.uniform_baseline)},
  };
  if (!ablation.all_heads())
    for (const HeadRef& h : ablation.heads()) j["ablated_heads"].push_back(head_label(h));
  add_analysis_json(j, a, ablation);
  if (!out.parent_path().empty()) fs::create_directories(out.parent_path());
  // The unchanged model's weights on one window, for `sinklab report` (docs/explorer.md).
  const std::vector<int32_t>& cut = text.bos ? with_bos : packed;
  j["explorer"] = write_explore_attention(model, folder, {cut.begin() + explored * T, cut.begin() + (explored + 1) * T},
                                          explored, window_attention_path(out));
  write_file_atomically(out, j.dump(2) + '\n');

  std::string what = "eval " + f.run + ": " + ablation_text(ablation) + " (" + m.family + ", model_type " +
                     m.model_type + ", " + std::to_string(c.model.layers) + " layer(s) x " +
                     std::to_string(c.model.heads) + " head(s), context " + std::to_string(m.context) + "), " +
                     std::to_string(windows) + " window(s) of T = " + std::to_string(T) + " from " + text.source +
                     massive_text(a.massive);
  if (windows < asked)
    what += "\n(the text holds " + std::to_string(windows) + " of the " + std::to_string(asked) + " windows asked for)";
  what +=
      text.bos
          ? "\nBOS id " + std::to_string(*text.bos) + " (" + text.bos_source +
                ") put in front of every window, as Gu et al. do: the analysis reads these windows; Sink_k "
                "without BOS reads the same text as packed windows"
          : "\nno BOS (neither the tokenizer nor config.json names one): packed windows, position 0 is a text token";
  char baseline[160];
  std::snprintf(baseline, sizeof baseline,
                "\nuniform causal attention at T = %d: alpha_0 = H_T / T = %.4f (compare the heads' alpha_0)", T,
                a.base_extremes.eval.uniform_baseline);
  what += baseline;
  print_summary(what, set.shape(), a.base, a.ablated, a.bos_map, ablation, out);
  std::printf("%s", format_extreme_token_table(a.ablated_extremes).c_str());
  if (a.head_ablation) std::printf("%s", head_ablation_text(*a.head_ablation, set.shape()).c_str());
  const nlohmann::json& x = j["explorer"];
  if (x["attention_file"].is_string())
    std::printf(
        "wrote %s (attention of window %lld, every layer and head; sinklab report %s draws its explorer page)\n",
        window_attention_path(out).string().c_str(), static_cast<long long>(explored), out.string().c_str());
  else
    std::printf("%s\n", x["note"].get<std::string>().c_str());
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto flags = std::make_shared<EvalFlags>();
  auto stream = std::make_shared<StreamFlags>();
  auto streaming = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "eval", "Evaluate a trained model on its task's evaluation set, or a Hugging Face model folder on windows of a "
              "text, optionally with the BOS key ablated; or, with --stream, a language model on a long stream with a "
              "cache of kept + recent tokens");
  cmd->add_option("RUN", flags->run,
                  "A run folder, a checkpoint file inside one, or a model folder (config.json and safetensors weights)")
      ->required();
  cmd->add_option("--ablate", flags->ablate, "none | mask_bos_key | zero_bos_weight (default none)");
  cmd->add_option("--heads", flags->heads, "Heads to ablate: all (default) or a list such as L0H1,L1H0");
  cmd->add_option("--eval-trigger", flags->eval_trigger, "Trigger position of the evaluation set (default: the run's)");
  cmd->add_option(
      "--seq-len", flags->seq_len,
      "Sequence length of the evaluation set (default: the run's, task.eval_seq_len or task.seq_len; a model "
      "folder: tokens per window, default min(context, 256))");
  cmd->add_option("--samples", flags->samples, "Evaluation inputs (default: the run's task.eval_samples)");
  cmd->add_option(
      "--massive", flags->massive,
      "set_zero | set_mean: set the largest residual activations (Sun et al.) to 0 or to their mean over the inputs");
  cmd->add_option("--massive-layer", flags->massive_layer,
                  "Block whose output is changed (default: the largest massive ratio)");
  cmd->add_option("--massive-position", flags->massive_position,
                  "Position changed (default: where that block's largest |h| is)");
  cmd->add_option("--massive-top-k", flags->massive_top_k,
                  "Channels changed: the k largest mean |h| at that position (default 3)");
  cmd->add_flag(
      "--head-ablation", flags->head_ablation,
      "Also mask the BOS key in each head alone, one head at a time, and list the loss change of each, largest first");
  cmd->add_option("--text", flags->text,
                  "A model folder: the text file to evaluate on, tokenized with the folder's tokenizer.json");
  cmd->add_option("--windows", flags->windows,
                  "A model folder: windows of --seq-len tokens cut from the text (default 4)");
  cmd->add_option("--threads", flags->threads, "A model folder: OpenMP threads (default 0: OpenMP's default)");
  cmd->add_option("--explore-window", flags->explore_window,
                  "A model folder: the window whose attention (every layer and head) is written beside the JSON for "
                  "`sinklab report` (default 0)");
  cmd->add_flag(
      "--stream", *streaming,
      "Streaming evaluation of a text_lm run (its validation part) or of a model folder (its text): next-token "
      "loss read through a cache of W tokens, the first K of the stream kept (writes RUN/eval/stream.json and "
      "stream.svg; a model folder: eval-<folder>-stream.json)");
  cmd->add_option("--window", stream->windows, "--stream: cache sizes W, a comma list such as 32,64");
  cmd->add_option(
      "--method", stream->method,
      "--stream: kv-cache (StreamingLLM's: each token read once, its keys and values kept), recompute "
      "(every window recomputed), or auto (default: kv-cache on a model folder that can, recompute on runs)");
  cmd->add_option("--keep-first", stream->keep_first,
                  "--stream: first tokens kept K, a comma list (default 0,1,2,4; pairs with K < W)");
  cmd->add_option("--tokens", stream->tokens,
                  "--stream on a run: tokens of the held-out stream (default 4 x task.seq_len, at most the validation "
                  "part); a model folder: a .npy file of token ids to evaluate on, instead of --text");
  cmd->add_option(
      "--out", flags->out,
      "Output JSON file (default RUN/eval/<mode>[_<heads>].json, with --stream RUN/eval/stream.json; a model "
      "folder: eval-<folder>[-<mode>].json in the current directory)");
  cmd->callback([cmd, flags, stream, streaming] {
    const auto refuse = [cmd](std::initializer_list<const char*> names, const std::string& why) {
      for (const char* name : names)
        if (cmd->get_option(name)->count() > 0) throw std::invalid_argument(std::string(name) + " " + why);
    };
    if (flags->threads < 0)
      throw std::invalid_argument("--threads " + std::to_string(flags->threads) +
                                  ": give 0 (OpenMP's default) or more");
    const bool model_folder = eval_source_kind(flags->run) == EvalSource::model_folder;
    if (!model_folder)
      refuse({"--text", "--windows", "--threads", "--explore-window"},
             "applies to a model folder (config.json and safetensors weights)");
    if (!*streaming) {
      refuse({"--window", "--keep-first", "--method"}, "belongs with --stream");
      if (!model_folder) {
        refuse({"--tokens"}, "belongs with --stream");
        run_eval(*flags);
        return;
      }
      flags->ids = stream->tokens;
      run_model_eval(*flags);
      return;
    }
    refuse({"--ablate", "--heads", "--eval-trigger", "--seq-len", "--samples", "--massive", "--massive-layer",
            "--massive-position", "--massive-top-k", "--head-ablation", "--windows", "--explore-window"},
           "does not apply to --stream (it changes the ablation evaluation)");
    stream->run = flags->run;
    stream->out = flags->out;
    if (!model_folder) {
      run_stream_eval(*stream);
      return;
    }
    stream->text = flags->text;
    stream->threads = flags->threads;
    run_model_stream_eval(*stream);
  });
}

}  // namespace sinklab::apps
