#include "report/explorer/open_model_explorer.h"

#include <cmath>
#include <initializer_list>
#include <iostream>
#include <string>
#include <vector>

#include "core/io/file_read.h"
#include "core/io/file_write.h"
#include "report/explorer/explorer_maps.h"
#include "report/explorer/explorer_page.h"
#include "report/explorer/open_model_attention_file.h"
#include "report/explorer/open_model_explorer_assets.h"
#include "report/report_folder_lock.h"
#include "run_files/output_path.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The page's own files, written beside explorer.js and explorer.css.
constexpr const char* kOpenModelExplorerScript = "open_model_explorer.js";
constexpr const char* kOpenModelExplorerStyle = "open_model_explorer.css";

[[noreturn]] void fail(const fs::path& eval_json, const std::string& why) {
  throw OpenModelExplorerError(eval_json.string() + ": " + why);
}

// An eval JSON of the largest open model is some MB (a few numbers per head).
constexpr uint64_t kMaxEvalJsonBytes = uint64_t{256} << 20;

json read_eval_json(const fs::path& path) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxEvalJsonBytes, "eval JSON");  // a FIFO or device is refused, not read
  } catch (const FileReadError& e) {
    throw OpenModelExplorerError(e.what());
  }
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    fail(path,
         std::string("is not JSON (") + e.what() + "); give the eval-<folder>.json that sinklab eval MODEL_DIR writes");
  }
}

// A number of the JSON, or null when it is missing, null or not a number.
json number_at(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
  }
  return at->is_number() && std::isfinite(at->get<double>()) ? *at : json(nullptr);
}

// Per head, layer-major: alpha_0 (Gu's Sink_1 share of the first key on the evaluation windows) and the
// sink score of the unchanged model, as the eval JSON holds them.
json head_facts(const json& eval, int layers, int heads, const fs::path& path) {
  const json& unablated = eval.contains("unablated") ? eval["unablated"] : eval;
  const json& stats = unablated.contains("heads") ? unablated["heads"] : eval["heads"];
  const json* alphas = nullptr;
  if (unablated.contains("extreme_tokens") && unablated["extreme_tokens"].is_object() &&
      unablated["extreme_tokens"].contains("eval"))
    alphas = &unablated["extreme_tokens"]["eval"]["heads"];
  if (!stats.is_array() || static_cast<int>(stats.size()) != layers * heads)
    fail(path, "'heads' has not one entry per head (" + std::to_string(layers) + " x " + std::to_string(heads) + ")");
  json facts = json::array();
  for (int i = 0; i < layers * heads; ++i) {
    json alpha0 = nullptr;
    if (alphas && alphas->is_array() && static_cast<int>(alphas->size()) == layers * heads &&
        (*alphas)[i].contains("alpha") && (*alphas)[i]["alpha"].is_array() && !(*alphas)[i]["alpha"].empty() &&
        (*alphas)[i]["alpha"][0].is_number())
      alpha0 = (*alphas)[i]["alpha"][0];
    facts.push_back({{"layer", i / heads},
                     {"head", i % heads},
                     {"alpha0", alpha0},
                     {"sink_score", number_at(stats[i], {"sink_score"})},
                     {"bos_mass", number_at(stats[i], {"bos_mass_mean"})}});
  }
  return facts;
}

}  // namespace

bool is_open_model_eval(const json& eval) {
  if (!eval.is_object()) return false;
  for (const char* key : {"model", "family", "model_type", "layers", "heads_per_layer", "seq_len", "heads"})
    if (!eval.contains(key)) return false;
  return eval["model"].is_string() && eval["model_type"].is_string() && eval["layers"].is_number_integer() &&
         eval["heads_per_layer"].is_number_integer() && eval["heads"].is_array();
}

fs::path open_model_explorer_dir(const fs::path& eval_json) {
  return eval_json.parent_path() / (eval_json.stem().string() + "-report");
}

fs::path write_open_model_explorer(const fs::path& eval_json, const fs::path& out_dir) {
  const json eval = read_eval_json(eval_json);
  if (!is_open_model_eval(eval))
    fail(eval_json,
         "is not the output of sinklab eval MODEL_DIR (it lacks the fields model, family, model_type, layers, "
         "heads_per_layer, seq_len, heads); sinklab report takes such a JSON, a run folder or a sweep folder");
  const int layers = eval["layers"].get<int>(), heads = eval["heads_per_layer"].get<int>();
  if (!eval.contains("explorer") || !eval["explorer"].is_object())
    fail(eval_json,
         "names no attention file (written by a sinklab before the explorer of open models); run its command again: " +
             eval.value("command", std::string("sinklab eval MODEL_DIR ...")));
  const json& x = eval["explorer"];
  if (!x.contains("attention_file") || !x["attention_file"].is_string())
    fail(eval_json, "has no attention file to show: " + (x.contains("note") && x["note"].is_string()
                                                             ? x["note"].get<std::string>()
                                                             : std::string("explorer.attention_file is not set")));
  const fs::path attention_path = eval_json.parent_path() / x["attention_file"].get<std::string>();
  WindowAttention a;
  try {
    a = read_window_attention(attention_path);
  } catch (const WindowAttentionFileError& e) {
    fail(eval_json, std::string("its attention file cannot be read: ") + e.what());
  }
  if (a.layers != layers || a.heads != heads || (x.contains("seq_len") && x["seq_len"] != a.seq_len) ||
      (x.contains("window") && x["window"] != a.window))
    fail(eval_json, "its attention file " + attention_path.string() + " holds window " + std::to_string(a.window) +
                        " of " + std::to_string(a.layers) + " layers x " + std::to_string(a.heads) +
                        " heads, T = " + std::to_string(a.seq_len) +
                        ", not what the JSON describes: it belongs to another evaluation; run sinklab eval again");

  // The maps as the explorer's data holds them (report/explorer/explorer_page.h): one "step", the
  // window, with every position stored, the labels made visible and valid UTF-8.
  ExplorerMaps maps;
  maps.steps = {a.window};
  maps.layers = a.layers;
  maps.heads = a.heads;
  for (int64_t t = 0; t < a.seq_len; ++t) maps.rows.push_back(t);
  maps.cols = maps.rows;
  maps.mean = std::move(a.weights);
  maps.tokens.assign(a.tokens.begin(), a.tokens.end());
  maps.token_labels = std::move(a.token_labels);
  maps.seq_len = a.seq_len;
  maps.source = attention_path.filename().string();
  json data = {{"kind", "open_model"},
               {"eval_file", eval_json.filename().string()},
               {"model", eval["model"]},
               {"family", eval["family"]},
               {"model_type", eval["model_type"]},
               {"text", eval.value("text", json(nullptr))},
               {"bos", eval.value("bos", json(nullptr))},
               {"windows", eval.value("windows", json(nullptr))},
               {"window", a.window},
               {"tokens_note", x.value("tokens", json(nullptr))},
               {"uniform_baseline", number_at(eval, {"uniform_baseline"})},
               {"sink_eps", number_at(eval, {"sink_eps"})},
               {"head_facts", head_facts(eval, layers, heads, eval_json)},
               {"maps", explorer_maps_data(maps, false)}};
  check_output_path(out_dir, OutputKind::folder, "report --out");
  fs::create_directories(out_dir);
  const ReportFolderLock lock(out_dir, std::cerr);  // a second report into out_dir waits for this one
  write_file_atomically(out_dir / kOpenModelExplorerScript, kOpenModelExplorerJs);
  write_file_atomically(out_dir / kOpenModelExplorerStyle, kOpenModelExplorerCss);
  const fs::path model = eval["model"].get<std::string>();
  const std::string name =
      model.filename().empty() ? model.parent_path().filename().string() : model.filename().string();
  write_explorer_page(out_dir, "Sink explorer: " + name + " on a text", data,
                      {kOpenModelExplorerScript, kOpenModelExplorerStyle});
  return out_dir / kExplorerPage;
}

}  // namespace sinklab
