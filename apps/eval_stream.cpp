#include "apps/eval_stream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/commands.h"
#include "apps/eval_open_model.h"
#include "apps/flag_integer.h"
#include "apps/model_for_length.h"
#include "core/io/file_write.h"
#include "core/options/bound.h"
#include "core/options/enum_names.h"
#include "core/thread_count.h"
#include "data/task_registry.h"
#include "models/model_loader.h"
#include "models/streaming_evaluation.h"
#include "report/gnuplot_runner.h"
#include "report/gnuplot_script.h"
#include "run_files/output_path.h"

namespace sinklab::apps {
namespace {

namespace fs = std::filesystem;

// One row of the table: a cache setting (or the dense baseline) and its losses.
struct StreamRow {
  int window = 0, keep_first = 0;
  double loss = 0.0;              // nats per token over every scored position
  int64_t scored = 0;
  double loss_past_window = 0.0;  // over positions t >= W only, where the cache has evicted tokens (NaN: none)
  int64_t scored_past_window = 0;
  double seconds = 0.0;  // wall time of the row's evaluation: what the method costs
};

// Whether the run's windows start with BOS: the task's `bos` option where it declares one (its declared
// default when unset), else always (text_lm's windows before task.bos existed).
bool task_uses_bos(const TaskConfig& t) {
  const TaskRegistration* reg = find_task(t.name);
  if (!reg || !task_declares_option(t.name, "bos")) return true;
  return PluginOptions(reg->options, t.options).flag("bos");
}

std::string flag_of(const std::string& setting) {
  if (setting == "window") return "--window";
  if (setting == "keep_first") return "--keep-first";
  return "--" + setting;
}

// An evaluation call with its setting errors named by flag.
template <typename F>
auto naming_flags(F&& f) {
  try {
    return f();
  } catch (const StreamSettingError& e) {
    throw std::invalid_argument(flag_of(e.setting()) + ": " + e.what());
  }
}

std::string joined_command_line() {
  std::string text;
  for (const std::string& w : command_line()) text += (text.empty() ? "" : " ") + w;
  return text;
}

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json row_json(const StreamRow& r, bool dense) {
  nlohmann::json j = {{"window", r.window}, {"loss", number(r.loss)}, {"perplexity", number(std::exp(r.loss))},
                      {"scored", r.scored}};
  if (dense) return j;
  j["keep_first"] = r.keep_first;
  j["loss_past_window"] = number(r.loss_past_window);
  j["scored_past_window"] = r.scored_past_window;
  j["seconds"] = r.seconds;
  return j;
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string markdown_table(const StreamRow& dense, const std::vector<StreamRow>& rows) {
  std::string t =
      "| W | K | loss (nats/token) | perplexity | loss at t >= W | tokens scored | seconds "
      "|\n|---|---|---|---|---|---|---|\n";
  t += "| dense (windows of " + std::to_string(dense.window) + ") | - | " + fixed(dense.loss, 4) + " | " +
       fixed(std::exp(dense.loss), 3) + " | - | " + std::to_string(dense.scored) + " | " + fixed(dense.seconds, 2) +
       " |\n";
  for (const StreamRow& r : rows)
    t += "| " + std::to_string(r.window) + " | " + std::to_string(r.keep_first) + " | " + fixed(r.loss, 4) + " | " +
         fixed(std::exp(r.loss), 3) + " | " + fixed(r.loss_past_window, 4) + " | " + std::to_string(r.scored) + " | " +
         fixed(r.seconds, 2) + " |\n";
  return t;
}

// <stem>.gp and <stem>.dat beside the JSON file (loss against K, one line per W, the dense baseline
// dashed), rendered to <stem>.svg and .png when gnuplot is installed. Returns the SVG's path, or nothing
// when it was not drawn (the runner says why on stdout).
std::optional<fs::path> draw_figure(const fs::path& json, const std::string& title, const StreamRow& dense,
                                    const std::vector<StreamRow>& rows) {
  const fs::path dir = json.parent_path().empty() ? fs::path(".") : json.parent_path();
  const std::string stem = json.stem().string();
  std::vector<int> windows;
  for (const StreamRow& r : rows)
    if (windows.empty() || windows.back() != r.window) windows.push_back(r.window);
  std::string data = "# K loss(nats/token) perplexity; one block per window W, in the order of the plot\n";
  for (const int w : windows) {
    data += "# W = " + std::to_string(w) + "\n";
    for (const StreamRow& r : rows)
      if (r.window == w)
        data +=
            std::to_string(r.keep_first) + " " + format_number(r.loss) + " " + format_number(std::exp(r.loss)) + "\n";
    data += "\n\n";
  }
  write_report_file(dir / (stem + ".dat"), data);
  std::string body = "  set title " + gnuplot_quote(title) + "\n  set grid\n  set key outside right top\n";
  body +=
      "  set xtics 1\n  set xlabel \"K: first tokens kept in the cache\"\n  set ylabel \"loss (nats/token)\"\n  set "
      "offsets 0.3, 0.3, 0, 0\n";
  body += "  plot ";
  for (std::size_t i = 0; i < windows.size(); ++i)
    body += "here." + gnuplot_quote(stem + ".dat") + " index " + std::to_string(i) +
            " using 1:2 with linespoints pt 7 lw 1.5 title " + gnuplot_quote("W = " + std::to_string(windows[i])) +
            ", \\\n       ";
  body += format_number(dense.loss) + " with lines dt 2 lw 1.5 lc rgb \"#444444\" title " +
          gnuplot_quote("dense, windows of " + std::to_string(dense.window)) + "\n";
  const fs::path script = dir / (stem + ".gp");
  write_report_file(script, gnuplot_script(stem, title, 800, 480, body));
  GnuplotRunner gnuplot("gnuplot", std::cout);
  if (!gnuplot.render(script)) return std::nullopt;
  return dir / (stem + ".svg");
}

// --out and the figure's files beside it (draw_figure; gnuplot's log and pictures): `--out RUN/train.json`
// would otherwise truncate RUN/train.log.
void check_stream_outputs(const fs::path& out) {
  check_output_path(out, OutputKind::file, "--out");
  for (const char* extension : {".dat", ".gp", ".log", ".png", ".svg"})
    check_output_path(out.parent_path() / (out.stem().string() + extension), OutputKind::file, "--out's figure file");
}

fs::path default_output(const fs::path& run_dir) {
  std::error_code ec;  // a link planted in the run folder would send the default output elsewhere
  if (fs::is_symlink(run_dir / "eval", ec))
    throw std::invalid_argument(
        (run_dir / "eval").string() +
        " is a symbolic link; the default output goes only into a real folder (remove the link, or give --out)");
  return run_dir / "eval" / "stream.json";
}

// Every pair K < W of --window and --keep-first.
std::vector<StreamWindow> stream_settings(const StreamFlags& f) {
  if (!f.windows)
    throw std::invalid_argument("--stream needs --window W (one or more cache sizes, e.g. --window 32,64)");
  const std::vector<int> windows = flag_integer_list("--window", *f.windows, 1, 65536);
  const std::vector<int> keeps = flag_integer_list("--keep-first", f.keep_first, 0, 65535);
  std::vector<StreamWindow> settings;
  for (const int w : windows)
    for (const int k : keeps)
      if (k < w) settings.push_back({w, k});
  if (settings.empty())
    throw std::invalid_argument("--keep-first " + f.keep_first + ": every K is >= every window in --window " +
                                *f.windows +
                                "; the cache must hold the kept tokens and at least one recent one (K < W)");
  return settings;
}

// What a streaming evaluation is of, for its output.
struct StreamSubject {
  nlohmann::json header;  // the JSON's leading fields
  std::string title;      // the figure's and the terminal's title
  std::string positional, stream_text;
};

// Runs every setting next to the dense baseline, writes `out` (and the figure beside it), prints the table.
// "kv-cache" or "recompute" for --method on this model: auto picks the cache on a model folder that can
// decode from one; an explicit kv-cache on a model that cannot is refused with the reason.
std::string resolved_method(const std::string& method, const StreamingEvaluator& evaluator, bool model_folder) {
  if (method != "auto" && method != "kv-cache" && method != "recompute")
    throw std::invalid_argument("--method: '" + method + "' is none of auto, kv-cache, recompute");
  const std::string why = evaluator.kv_cache_refusal();
  if (method == "kv-cache" && !why.empty()) throw std::invalid_argument("--method kv-cache: " + why);
  if (method == "auto") return model_folder && why.empty() ? "kv-cache" : "recompute";
  return method;
}

void evaluate_stream(Model& model, std::span<const int32_t> stream, bool bos, int32_t bos_id,
                     const std::vector<StreamWindow>& settings, const std::string& method_flag, bool model_folder,
                     const fs::path& out, StreamSubject subject) {
  StreamingEvaluator evaluator(model, stream, bos, bos_id);
  const std::string method = resolved_method(method_flag, evaluator, model_folder);
  for (const StreamWindow& s : settings) naming_flags([&] { evaluator.check_window(s); return 0; });  // before any work
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  Clock::time_point start = Clock::now();
  const std::vector<double> dense_losses = evaluator.dense_losses();
  const StreamRow dense{evaluator.trained_context() + 1,
                        0,
                        mean_loss(dense_losses),
                        evaluator.scored_positions(),
                        0.0,
                        0,
                        seconds_since(start)};
  std::vector<StreamRow> rows;
  for (const StreamWindow& s : settings) {
    start = Clock::now();
    const std::vector<double> losses = method == "kv-cache" ? evaluator.cached_losses(s) : evaluator.windowed_losses(s);
    const auto past = static_cast<std::size_t>(s.window);
    rows.push_back({s.window, s.keep_first, mean_loss(losses), evaluator.scored_positions(), mean_loss(losses, past),
                    std::max<int64_t>(0, evaluator.scored_positions() - s.window), seconds_since(start)});
  }

  if (!out.parent_path().empty()) fs::create_directories(out.parent_path());
  const std::optional<fs::path> figure = draw_figure(out, subject.title, dense, rows);
  nlohmann::json j = std::move(subject.header);
  j["method"] = method;
  j["trained_context"] = evaluator.trained_context();
  j["scored"] = evaluator.scored_positions();
  j["dense"] = row_json(dense, true);
  j["streaming"] = nlohmann::json::array();
  j["figure"] = figure ? nlohmann::json(figure->string()) : nlohmann::json();
  for (const StreamRow& r : rows) j["streaming"].push_back(row_json(r, false));
  write_file_atomically(out, j.dump(2) + '\n');

  std::printf("%s (%s positions, trained context %d, %s; streaming method %s)\n\n%s\nwrote %s\n", subject.title.c_str(),
              subject.positional.c_str(), evaluator.trained_context(), subject.stream_text.c_str(),
              method == "kv-cache" ? "kv-cache: each token read once, kept keys and values"
                                   : "recompute: every window recomputed",
              markdown_table(dense, rows).c_str(), out.string().c_str());
  if (figure) std::printf("figure %s\n", figure->string().c_str());
}

}  // namespace

void run_stream_eval(const StreamFlags& f) {
  const std::vector<StreamWindow> settings = stream_settings(f);
  int longest = 0;
  for (const StreamWindow& s : settings) longest = std::max(longest, s.window);

  const fs::path given(f.run);
  std::unique_ptr<Model> model = load_model(given);
  const RunConfig c = model->config();  // a copy: model_for_length may replace the model
  const fs::path run_dir = fs::is_directory(given) ? given : given.parent_path();
  if (!f.out.empty()) check_stream_outputs(f.out);
  const std::unique_ptr<Task> task = make_task(c.task, c.model.residual);
  const bool bos = task_uses_bos(c.task);
  const int64_t tokens =
      f.tokens ? flag_integer("--tokens", *f.tokens, 1, 1 << 30) : default_stream_tokens(*task, c.task.seq_len);
  const std::vector<int32_t> stream = naming_flags([&] { return held_out_stream(*task, tokens, bos); });
  if (c.model.positional != Positional::learned)  // learned positions: the evaluator names --window's limit
    model = model_for_length(std::move(model), longest, "--window " + std::to_string(longest));
  set_thread_count(c.threads);

  const fs::path out = f.out.empty() ? default_output(run_dir) : fs::path(f.out);
  StreamSubject subject;
  subject.title = "streaming evaluation of " + run_dir.filename().string() + ": " + c.model.attention.normalizer.name +
                  ", " + std::to_string(tokens) + " validation tokens";
  subject.positional = std::string(to_string(c.model.positional));
  subject.stream_text = bos ? "the stream starts with BOS" : "no BOS";
  subject.header = {
      {"command", joined_command_line()},
      {"run", run_dir.string()},
      {"checkpoint", (fs::is_directory(given) ? given / "checkpoint.bin" : given).string()},
      {"normalizer", c.model.attention.normalizer.name},
      {"positional", subject.positional},
      {"seq_len", c.task.seq_len},
      {"bos", bos},
      {"tokens", tokens},
  };
  evaluate_stream(*model, stream, bos, 0, settings, f.method, false, out, std::move(subject));
}

void run_model_stream_eval(const StreamFlags& f) {
  const std::vector<StreamWindow> settings = stream_settings(f);
  int longest = 0;
  for (const StreamWindow& s : settings) longest = std::max(longest, s.window);
  const fs::path folder(f.run);
  const OpenModel m = load_model_folder(folder, f.threads > 0 ? f.threads : 1, longest);
  // The cache is read at positions 0 .. W-1, so W is bounded by the positions the model was trained on.
  if (longest > m.context)
    throw std::invalid_argument("--window " + std::to_string(longest) + " is longer than the model's context of " +
                                std::to_string(m.context) + " tokens (max_position_embeddings); use at most " +
                                std::to_string(m.context));
  const fs::path out = model_eval_output(folder, f.out, "-stream");
  const OpenModelText text = read_model_text(folder, f.text, f.tokens, m.model->shape().output_dim);
  std::vector<int32_t> stream;
  stream.reserve(text.ids.size() + 1);
  if (text.bos) stream.push_back(*text.bos);
  stream.insert(stream.end(), text.ids.begin(), text.ids.end());
  if (f.threads > 0) set_thread_count(f.threads);

  const RunConfig& c = m.model->config();
  StreamSubject subject;
  subject.title = "streaming evaluation of " + fs::weakly_canonical(folder).filename().string() + ": " + m.model_type +
                  ", " + std::to_string(text.ids.size()) + " text tokens";
  subject.positional = std::string(to_string(c.model.positional));
  // The dense baseline's windows start with the model's own BOS, as the stream does.
  subject.stream_text = text.bos ? "the stream and every dense window start with BOS id " + std::to_string(*text.bos) +
                                       " from " + text.bos_source
                                 : "no BOS";
  subject.header = {
      {"command", joined_command_line()},
      {"model", folder.string()},
      {"family", m.family},
      {"model_type", m.model_type},
      {"context", m.context},
      {"text", text.source},
      {"positional", subject.positional},
      {"bos", text.bos ? nlohmann::json(*text.bos) : nlohmann::json()},
      {"tokens", static_cast<int64_t>(text.ids.size())},
  };
  evaluate_stream(*m.model, stream, text.bos.has_value(), text.bos.value_or(0), settings, f.method, true, out,
                  std::move(subject));
}

}  // namespace sinklab::apps
