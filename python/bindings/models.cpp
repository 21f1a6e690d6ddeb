// Models from Python (docs/python.md, "Models"): load a run's model, build one fresh or from a
// construction, read and write its parameters as NumPy views, and run it with a cache of every named
// activation and with Python hooks that may edit them (core/observe/activation_hooks.h).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings/activation_cache.h"
#include "bindings/bindings.h"
#include "bindings/config_dict.h"
#include "bindings/tensor_arrays.h"
#include "config_loading/config_loader.h"
#include "config_loading/memory_estimate.h"
#include "core/thread_count.h"
#include "train/evaluation_pipeline.h"
#include "data/eval_set.h"
#include "data/task_registry.h"
#include "layers/attention_ablation.h"
#include "models/constructions.h"
#include "models/open_models/open_model_loader.h"
#include "models/model_loader.h"
#include "models/sink_evaluation.h"
#include "run_files/run_summary.h"

namespace py = pybind11;

namespace sinklab::python {
namespace {

struct PyModel {
  std::unique_ptr<Model> model;
  std::string family;  // an open checkpoint's family ("llama"), "" for a run's model
  std::vector<std::string> activation_names;  // found by a one-position pass on first use
  std::shared_ptr<Graph> spare;               // the last pass's graph, reused once no cache holds it
  std::recursive_mutex passes;                // held by the thread whose pass runs (nested passes re-enter)
};

// One thread's passes of one model at a time. Python's lock alone does not order them: a hook that
// releases it (NumPy does, on large arrays) would let another thread's pass swap the model's hooks and
// ablation in the middle of this one. A hook's nested pass, on the same thread, re-enters.
class ModelLock {
 public:
  explicit ModelLock(PyModel& m) : mutex_(m.passes) {
    if (!mutex_.try_lock()) {
      const py::gil_scoped_release waiting;  // the holder may need Python's lock to finish its hooks
      mutex_.lock();
    }
  }
  ~ModelLock() { mutex_.unlock(); }
  ModelLock(const ModelLock&) = delete;
  ModelLock& operator=(const ModelLock&) = delete;

 private:
  std::recursive_mutex& mutex_;
};

using HookList = std::vector<std::pair<std::string, py::function>>;

// A graph for the next pass: the model's last one when nothing else holds it (no allocation once its
// arena has grown), else a new one.
std::shared_ptr<Graph> graph_for_pass(PyModel& m) {
  if (m.spare && m.spare.use_count() == 1) {
    m.spare->reset();
  } else {  // sized like the last pass's, so that a pass of the same inputs does not grow it block by block
    m.spare =
        std::make_shared<Graph>(m.spare ? std::max(m.spare->arena().high_water(), size_t{1} << 16) : size_t{1} << 16);
  }
  m.spare->set_grad_enabled(false);
  return m.spare;
}

// Hands activations to Python functions by name and records them in the pass's cache.
class PythonHooks : public ActivationHooks {
 public:
  // `owner` keeps the pass's memory alive for arrays handed out, unless `memory_reused` (an evaluation
  // reuses one graph chunk after chunk, and frees it at the end): then a hook gets a copy of the activation,
  // owned by NumPy, and what it leaves in the copy (or returns) is written back. A hook may then keep its
  // array, read it after the pass, or hand it to another thread: it never points into the evaluation.
  PythonHooks(const HookList& hooks, ActivationCache* cache, py::handle owner, bool memory_reused = false)
      : hooks_(hooks), cache_(cache), owner_(owner), memory_reused_(memory_reused) {}
  void on_activation(std::string_view name, const Tensor& value) override {
    if (cache_) cache_->add(std::string(name), value);
    for (const auto& [hook_name, fn] : hooks_) {
      if (hook_name != name) continue;
      py::array_t<float> view = array_view(value, owner_);
      py::array_t<float> given = memory_reused_ ? py::array_t<float>(view.attr("copy")()) : view;
      py::object result = fn(given, py::str(hook_name));
      if (result.is_none()) {
        if (memory_reused_) view.attr("__setitem__")(py::ellipsis(), given);  // edits made in place
        continue;
      }
      // A returned array replaces the activation (TransformerLens's convention), same shape only.
      py::array_t<float, py::array::forcecast> replacement = py::array_t<float, py::array::forcecast>::ensure(result);
      if (!replacement || replacement.ndim() != view.ndim() ||
          !std::equal(view.shape(), view.shape() + view.ndim(), replacement.shape())) {
        PyErr_Clear();  // ensure() leaves a conversion error set when it fails
        const std::string got = py::hasattr(result, "shape")
                                    ? "an array of shape " + std::string(py::str(result.attr("shape")))
                                    : "a " + std::string(py::str(result.get_type().attr("__name__")));
        throw py::value_error("hook on " + hook_name + ": it returned " + got +
                              ", not None or an array of the activation's shape " +
                              std::string(py::str(view.attr("shape"))));
      }
      view.attr("__setitem__")(py::ellipsis(), replacement);
    }
  }

 private:
  const HookList& hooks_;
  ActivationCache* cache_;
  py::handle owner_;
  bool memory_reused_;
};

// The virtual mass [B, H, T] of every attention layer, as the pass's observers see it.
class VirtualMassRecorder : public AttentionObserver {
 public:
  explicit VirtualMassRecorder(ActivationCache& cache) : cache_(cache) {}
  void on_attention(const AttentionView& v) override {
    if (!v.virtual_mass) return;
    const Tensor mass(const_cast<float*>(v.virtual_mass), nullptr, Shape{v.heads, v.batch, v.seq_len});
    cache_.add("blocks." + std::to_string(v.layer) + ".attn.virtual_mass", mass.permute({1, 0, 2}));
  }

 private:
  ActivationCache& cache_;
};

// One pass's hooks, ablation and thread count. Hooks belong to a pass, not to the model: a hook may run
// the model again (a nested pass, with its own hooks, cache and observers), and the outer pass goes on
// with all of its own afterwards, however the nested one ends.
class PassScope {
 public:
  PassScope(PyModel& m, ActivationHooks* hooks, AttentionAblation ablation)
      : t_(m.model->transformer()), outer_(t_.take_pass_context()),
        outer_threads_(set_thread_count(m.model->config().threads)) {  // the run's own count: the same bits
    try {
      t_.set_ablation(std::move(ablation));
    } catch (...) {
      restore();
      throw;
    }
    t_.set_hooks(hooks);
  }
  ~PassScope() { restore(); }
  PassScope(const PassScope&) = delete;
  PassScope& operator=(const PassScope&) = delete;

 private:
  void restore() {
    t_.restore_pass_context(std::move(outer_));
    set_thread_count(outer_threads_);
  }
  Transformer& t_;
  Transformer::PassContext outer_;
  int outer_threads_;
};

AttentionAblation ablation_of(const Model& m, const std::string& mode, const std::string& heads) {
  const AblationMode parsed = parse_ablation_mode(mode);
  const RunConfig& c = m.config();
  if (parsed == AblationMode::none && heads != "all")
    throw std::invalid_argument("heads: ablation 'none' ablates no head; leave heads out");
  return AttentionAblation(parsed, parse_head_list(heads, c.model.layers, c.model.heads));
}

// Bytes one pass over [B, T] inputs needs: the inputs converted, every block's activations (two blocks'
// when `block_by_block`) and the output. A coarse upper estimate in double, made before anything is
// allocated, so that a broadcast array of a few bytes standing for 2^30 positions is refused with a
// message instead of an allocation failure (or worse) deep in the pass.
double pass_bytes(const Model& model, double B, double T, bool block_by_block) {
  const ModelConfig& c = model.config().model;
  const ModelShape& shape = model.shape();
  const double N = B * T, d = c.d_model, H = c.heads, hd = H * resolved_head_dim(c), mlp = c.mlp_hidden;
  const double input = c.input == InputKind::tokens ? N * (sizeof(int64_t) + sizeof(int32_t))
                                                    : 2 * N * shape.input_dim * sizeof(float);
  // q, k, v, rotations, per-head outputs; scores and weights [H, B, T, T]; norms, residuals, MLP (gated).
  const double block = 8 * N * hd + 2 * H * B * T * T + 8 * N * d + 8 * N * mlp;
  const double blocks = block_by_block ? std::min(c.layers, 2) : c.layers;
  return input + sizeof(float) * (blocks * block + 4 * N * d + 2 * N * shape.output_dim);
}

// Runs the pass over `inputs` ([B, T, input_dim] floats or [B, T] token ids) with the model's current
// hooks; returns its output. `block_by_block` (token models, nothing kept): one block's activations at a
// time (Transformer::forward_tokens_block_by_block), the same bits in a fraction of the memory.
Tensor forward_inputs(Graph& g, PyModel& m, const py::array& inputs, bool block_by_block = false) {
  const RunConfig& c = m.model->config();
  const ModelShape& shape = m.model->shape();
  Transformer& t = m.model->transformer();
  const bool tokens = c.model.input == InputKind::tokens;
  const py::ssize_t rank = tokens ? 2 : 3;
  const std::string expected =
      tokens ? "[batch, positions] token ids" : "[batch, positions, " + std::to_string(shape.input_dim) + "] floats";
  if (inputs.ndim() != rank)
    throw py::value_error("inputs: this model reads " + expected + ", got an array of " +
                          std::to_string(inputs.ndim()) + " dimension(s)");
  const int64_t B = inputs.shape(0), T = inputs.shape(1);
  if (B < 1 || T < 1)
    throw py::value_error("inputs: need at least one sample and one position, got shape " +
                          std::string(py::str(inputs.attr("shape"))));
  if (T > shape.max_seq_len)
    throw py::value_error("inputs: " + std::to_string(T) + " positions, more than the model's " +
                          std::to_string(shape.max_seq_len));
  if (!tokens && inputs.shape(2) != shape.input_dim)
    throw py::value_error("inputs: this model reads " + expected + ", got width " + std::to_string(inputs.shape(2)));
  check_fits_in_memory(pass_bytes(*m.model, static_cast<double>(B), static_cast<double>(T), block_by_block), "inputs",
                       "a pass over " + std::to_string(B) + " x " + std::to_string(T) + " positions");
  if (tokens) {
    const char kind = inputs.dtype().kind();
    if (kind != 'i' && kind != 'u')
      throw py::type_error("inputs: token ids must be integers, got dtype " + std::string(py::str(inputs.dtype())));
    const auto ids = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(inputs);
    int32_t* dst = reinterpret_cast<int32_t*>(g.scratch(static_cast<size_t>(B * T)));
    for (int64_t i = 0; i < B * T; ++i) {
      const int64_t id = ids.data()[i];
      if (id < 0 || id >= c.model.vocab_size)
        throw py::value_error("inputs: token id " + std::to_string(id) + " at flat index " + std::to_string(i) +
                              " is outside the vocabulary 0.." + std::to_string(c.model.vocab_size - 1));
      dst[i] = static_cast<int32_t>(id);
    }
    return block_by_block ? t.forward_tokens_block_by_block(g, dst, B, T) : t.forward_tokens(g, dst, B, T);
  }
  const char kind = inputs.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u')
    throw py::type_error("inputs: expected numbers, got dtype " + std::string(py::str(inputs.dtype())));
  const auto values = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(inputs);
  Tensor x = g.new_tensor(Shape{B, T, shape.input_dim}, false);
  std::copy_n(values.data(), x.numel(), x.data());
  return t.forward(g, x);
}

// One pass: (output, cache). The cache holds every activation when `cache_all`, else none.
std::pair<py::array_t<float>, py::object> run_pass(PyModel& m, const py::array& inputs, const HookList& hooks,
                                                   bool cache_all, const std::string& mode, const std::string& heads) {
  const ModelLock lock(m);
  const std::shared_ptr<Graph> graph = graph_for_pass(m);
  auto cache = std::make_shared<ActivationCache>(graph);
  py::object owner = py::cast(cache);
  PythonHooks python_hooks(hooks, cache_all ? cache.get() : nullptr, owner);
  Transformer& t = m.model->transformer();
  const PassScope scope(m, &python_hooks, ablation_of(*m.model, mode, heads));
  VirtualMassRecorder masses(*cache);
  std::optional<AttentionObservers::Registration> registration;
  if (cache_all) registration.emplace(t.observers().observe(masses));
  // Without a cache or hooks nothing outlives its block, so only the output stays in the pass's graph.
  const Tensor y = forward_inputs(*graph, m, inputs, !cache_all && hooks.empty());
  return {array_view(y, owner), owner};
}

// The names a pass hands to hooks, in order (one position of zeros is enough to visit them all).
const std::vector<std::string>& activation_names(PyModel& m) {
  if (!m.activation_names.empty()) return m.activation_names;
  const ModelShape& shape = m.model->shape();
  const bool tokens = m.model->config().model.input == InputKind::tokens;
  py::array zeros = tokens ? py::array(py::array_t<int32_t>(std::vector<py::ssize_t>{1, 1}))
                           : py::array(py::array_t<float>(std::vector<py::ssize_t>{1, 1, shape.input_dim}));
  std::fill_n(static_cast<char*>(zeros.mutable_data()), zeros.nbytes(), 0);
  auto [output, cache] = run_pass(m, zeros, {}, true, "none", "all");
  m.activation_names = cache.cast<const ActivationCache&>().names();
  return m.activation_names;
}

// Hooks as given (a dict name -> fn, or a list of (name, fn) pairs), each name checked.
HookList hook_list(PyModel& m, const py::object& hooks) {
  HookList list;
  if (hooks.is_none()) return list;
  py::iterable items;
  if (py::isinstance<py::dict>(hooks))
    items = hooks.attr("items")();
  else if (py::isinstance<py::list>(hooks) || py::isinstance<py::tuple>(hooks))
    items = hooks;
  else
    throw py::type_error("hooks: expected a dict {name: function} or a list of (name, function) pairs, got " +
                         std::string(py::str(hooks.get_type().attr("__name__"))));
  const std::vector<std::string>& names = activation_names(m);
  for (const py::handle item : items) {
    const py::tuple pair = py::reinterpret_borrow<py::object>(item).cast<py::tuple>();
    if (pair.size() != 2) throw py::type_error("hooks: each entry must be a (name, function) pair");
    if (!py::isinstance<py::str>(pair[0]))
      throw py::type_error("hooks: a hook name must be a string, got " + std::string(py::str(pair[0])));
    const std::string name = pair[0].cast<std::string>();
    if (std::find(names.begin(), names.end(), name) == names.end() || name.ends_with(".virtual_mass"))
      throw py::value_error("hooks: '" + name +
                            "' is not an activation this model hands to hooks; see model.activation_names()");
    if (!PyCallable_Check(pair[1].ptr())) throw py::type_error("hooks: the hook on " + name + " is not callable");
    list.emplace_back(name, pair[1].cast<py::function>());
  }
  return list;
}

// A measure the task does not define (NaN) is None, as `sinklab eval` writes null.
py::object defined_or_none(double v) { return std::isnan(v) ? py::object(py::none()) : py::object(py::float_(v)); }

py::object json_to_python(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

// The evaluation set and one chunk of passes must fit in memory (`sinklab eval`'s check, naming `samples`).
void check_evaluation_memory(const RunConfig& c, const TaskConfig& t) {
  RunConfig sized = c;
  sized.task = t;
  sized.task.eval_seq_len = 0;
  sized.train.batch_size = 1;  // no training step here
  check_fits_in_memory(estimate_memory(sized).total(), "samples",
                       "the evaluation of " + std::to_string(t.eval_samples) + " inputs of length " +
                           std::to_string(t.seq_len));
}

// The task's evaluation set through the same evaluation as `sinklab eval`, with the hooks set.
py::object evaluate_task(PyModel& m, const py::object& hooks, const std::string& mode, const std::string& heads,
                    std::optional<int> samples) {
  const ModelLock lock(m);
  const RunConfig& c = m.model->config();
  TaskConfig t = evaluation_task_config(c.task);
  if (samples) {
    if (*samples < 1 || *samples > 1000000)
      throw py::value_error("samples: expected 1 .. 1000000, got " + std::to_string(*samples));
    t.eval_samples = *samples;
  }
  check_evaluation_memory(c, t);
  const EvaluationPipeline pipeline(c, t);  // the trainer's evaluation (train/evaluation_pipeline.h)
  const EvalSet& set = pipeline.set();
  const HookList list = hook_list(m, hooks);
  auto cache = std::make_shared<ActivationCache>(nullptr);
  py::object owner = py::cast(cache);
  PythonHooks python_hooks(list, nullptr, owner, /*memory_reused=*/true);
  EvaluationRequest request;  // as `sinklab eval`: the run's own bits without hooks
  request.row_errors = true;
  request.ablation = ablation_of(*m.model, mode, heads);
  SinkEvaluation e;
  {
    const PassScope scope(m, list.empty() ? nullptr : &python_hooks, AttentionAblation());
    Graph graph;
    e = pipeline.evaluate(graph, *m.model, request);
  }
  const EvalMetrics& r = e.metrics;
  py::dict out;
  out["mse"] = defined_or_none(r.mse);
  out["max_abs_error"] = defined_or_none(r.max_abs_error);
  out["loss"] = defined_or_none(r.loss);
  out["accuracy"] = defined_or_none(r.accuracy);
  out["active_loss"] = defined_or_none(r.active_loss);
  out["active_accuracy"] = defined_or_none(r.active_accuracy);
  out["no_op_loss"] = defined_or_none(r.no_op_loss);
  out["no_op_accuracy"] = defined_or_none(r.no_op_accuracy);
  out["no_op_max_abs_error"] = defined_or_none(r.no_op_max_abs_error);
  out["active_max_abs_error"] = defined_or_none(r.active_max_abs_error);
  out["row_max_abs_error"] = r.row_max_abs_error;
  out["samples"] = set.size();
  py::list head_list;
  for (const HeadSinkStats& h : e.heads) head_list.append(json_to_python(nlohmann::json(h)));
  out["heads"] = head_list;
  return out;
}

std::unique_ptr<PyModel> wrap(std::unique_ptr<Model> model) {
  auto m = std::make_unique<PyModel>();
  m->model = std::move(model);
  return m;
}

}  // namespace

void bind_models(py::module_& m) {
  py::class_<ActivationCache, std::shared_ptr<ActivationCache>>(m, "ActivationCache",
                                                                 "Every named activation of one pass, as NumPy views")
      .def("__getitem__",
           [](py::object self, const std::string& name) {
             const ActivationCache& c = self.cast<const ActivationCache&>();
             const Tensor* t = c.find(name);
             if (!t) throw py::key_error("'" + name + "' is not in this cache; see cache.keys()");
             return array_view(*t, self);
           })
      .def("__contains__", [](const ActivationCache& c, const std::string& name) { return c.find(name) != nullptr; })
      .def("__len__", [](const ActivationCache& c) { return c.names().size(); })
      .def("keys", &ActivationCache::names)
      .def("__iter__", [](const ActivationCache& c) { return py::iter(py::cast(c.names())); });

  py::class_<PyModel>(m, "Model", "A sinklab model (docs/python.md, \"Models\")")
      .def_property_readonly("config", [](const PyModel& p) { return config_dict(p.model->config()); })
      .def_property_readonly("layers", [](const PyModel& p) { return p.model->config().model.layers; })
      .def_property_readonly("heads", [](const PyModel& p) { return p.model->config().model.heads; })
      .def_property_readonly("d_model", [](const PyModel& p) { return p.model->config().model.d_model; })
      .def_property_readonly("max_seq_len", [](const PyModel& p) { return p.model->shape().max_seq_len; })
      .def_property_readonly("input_dim", [](const PyModel& p) { return p.model->shape().input_dim; })
      .def_property_readonly("output_dim", [](const PyModel& p) { return p.model->shape().output_dim; })
      .def_property_readonly("reads_tokens",
                             [](const PyModel& p) { return p.model->config().model.input == InputKind::tokens; })
      .def("parameters",
           [](py::object self) {
             PyModel& p = self.cast<PyModel&>();
             py::dict out;
             const ParameterStore& store = p.model->parameters();
             for (const ParameterInfo& info : store.parameters())
               out[py::str(info.name)] = array_view(store.tensor(info.name), self);
             return out;
           })
      .def("activation_names", [](PyModel& p) { return activation_names(p); })
      .def(
          "run",
          [](PyModel& p, const py::array& inputs, const py::object& hooks, bool cache, const std::string& ablate,
             const std::string& heads) {
            const HookList list = hook_list(p, hooks);
            auto [output, owner] = run_pass(p, inputs, list, cache, ablate, heads);
            return py::make_tuple(output, cache ? owner : py::none());
          },
          py::arg("inputs"), py::arg("hooks") = py::none(), py::arg("cache") = false, py::arg("ablate") = "none",
          py::arg("heads") = "all")
      .def_property_readonly("family", [](const PyModel& p) { return p.family; })
      .def(
          "evaluate",
          [](PyModel& m, const py::object& hooks, const std::string& mode, const std::string& heads,
             std::optional<int> samples) {
            if (!m.family.empty())
              throw py::value_error("evaluate() runs a trained run's task evaluation set; a " + m.family +
                                    " checkpoint has no task: evaluate it on text with `sinklab eval MODEL_DIR "
                                    "--text FILE`, or read its attention with run_with_cache");
            return evaluate_task(m, hooks, mode, heads, samples);
          },
          py::arg("hooks") = py::none(), py::arg("ablate") = "none", py::arg("heads") = "all",
           py::arg("samples") = std::nullopt);

  m.def("load_model", [](const std::string& run) { return wrap(load_model(run)); }, py::arg("run"),
        "The model of a run folder, or of a checkpoint file inside one.");
  m.def(
      "load_open_model",
      [](const std::string& folder, int threads) {
        OpenModelOptions options;
        options.threads = threads;
        OpenModel open = load_open_model(folder, options);
        auto wrapped = wrap(std::move(open.model));
        wrapped->family = open.family;
        return wrapped;
      },
      py::arg("folder"), py::arg("threads") = 1,
      "A Hugging Face model folder (config.json + safetensors) as a model (docs/open-models.md).");
  m.def(
      "build_model",
      [](const std::string& config, const std::vector<std::string>& overrides) {
        return wrap(build_model(load_run_config(config, overrides)));
      },
      py::arg("config"), py::arg("overrides") = std::vector<std::string>{},
      "A freshly initialized model of a config file (the trainer's initialization for its seed).");
  m.def(
      "construct",
      [](const std::string& config, const std::string& kind, double beta, double c,
         const std::vector<std::string>& overrides) {
        ConstructionKind k{};
        if (kind == "softmax")
          k = ConstructionKind::softmax;
        else if (kind == "relu")
          k = ConstructionKind::relu;
        else
          throw py::value_error("construct: kind must be 'softmax' or 'relu', got '" + kind + "'");
        return wrap(build_construction(load_run_config(config, overrides), k, ConstructionParams{beta, c}));
      },
      py::arg("config"), py::arg("kind"), py::arg("beta") = 20.0, py::arg("c") = 1.0,
      py::arg("overrides") = std::vector<std::string>{},
      "The explicit construction of the constructions spec on a config's model (docs/reproducing-sinks.md).");
}

}  // namespace sinklab::python
