#include "apps/eval_open_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>
#include <stdexcept>

#include "apps/flag_integer.h"
#include "core/graph.h"
#include "core/io/file_read.h"
#include "core/observe/attention_observer.h"
#include "models/model.h"
#include "models/open_models/hf_config.h"
#include "models/token_windows.h"
#include "report/explorer/open_model_attention_file.h"
#include "run_files/output_path.h"
#include "tokenizers/tokenizer.h"

namespace sinklab::apps {
namespace {

namespace fs = std::filesystem;

// A text file of at most 1 GiB: far beyond what a CPU evaluation reads, small enough to hold.
constexpr uint64_t kMaxTextBytes = uint64_t{1} << 30;

bool has_safetensors(const fs::path& folder) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec))
    if (e.path().extension() == ".safetensors" || e.path().filename() == "model.safetensors.index.json") return true;
  return false;
}

std::string what_each_holds() {
  return "give a run folder (config.yaml and checkpoint.bin, as `sinklab train` writes it), a checkpoint file inside "
         "one, or a model folder (config.json and safetensors weights, as Hugging Face stores a model)";
}

// config.json's bos_token_id, when it names one.
std::optional<int32_t> config_bos(const fs::path& folder) {
  const HfConfig config(folder / "config.json");
  if (!config.has("bos_token_id") || !config.raw("bos_token_id").is_number_integer()) return std::nullopt;
  return static_cast<int32_t>(config.integer("bos_token_id"));
}

// Copies every layer's [T, T] weights of sample 0 during one forward pass, layer-major, head by head.
class WindowWeights final : public AttentionObserver {
 public:
  explicit WindowWeights(std::vector<float>& out) : out_(&out) {}
  void on_attention(const AttentionView& v) override {
    for (int64_t h = 0; h < v.heads; ++h) {
      const float* a = v.weights_block(0, h);
      out_->insert(out_->end(), a, a + v.seq_len * v.seq_len);
    }
  }

 private:
  std::vector<float>* out_;
};

std::string mebibytes(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

}  // namespace

int64_t explore_window(const std::optional<std::string>& flag, int64_t windows) {
  if (!flag) return 0;
  const int64_t j = flag_integer("--explore-window", *flag, 0, 1000000);
  if (j >= windows)
    throw std::invalid_argument("--explore-window " + *flag + ": the evaluation has " + std::to_string(windows) +
                                " window(s), numbered from 0; give 0 .. " + std::to_string(windows - 1));
  return j;
}

fs::path window_attention_path(const fs::path& eval_json) {
  return eval_json.parent_path() / (eval_json.stem().string() + ".attention.npz");
}

std::vector<std::string> window_token_texts(const fs::path& folder, const std::vector<int32_t>& ids,
                                            std::string& note) {
  std::vector<std::string> texts;
  std::error_code ec;
  if (fs::exists(folder / "tokenizer.json", ec)) {
    try {
      const Tokenizer tokenizer = Tokenizer::from_path(folder);
      for (const int32_t id : ids) texts.push_back(tokenizer.decode(std::span<const int32_t>(&id, 1)));
      note = "each token decoded alone by " + (folder / "tokenizer.json").string();
      return texts;
    } catch (const TokenizerError& e) {
      // The tokens' text only labels the page; the ids still say which token each position holds.
      texts.clear();
      note = "token ids as text (" + std::string(e.what()) + ")";
    }
  } else {
    note = "token ids as text (" + folder.string() + " has no tokenizer.json)";
  }
  for (const int32_t id : ids) texts.push_back(std::to_string(id));
  return texts;
}

nlohmann::json write_explore_attention(Model& model, const fs::path& folder, const std::vector<int32_t>& window_ids,
                                       int64_t window, const fs::path& file) {
  const RunConfig& c = model.config();
  const int T = static_cast<int>(window_ids.size());
  const int64_t values = int64_t{c.model.layers} * c.model.heads * T * T;
  nlohmann::json j = {{"window", window}, {"seq_len", T}, {"weights", values}, {"attention_file", nullptr}};
  if (values > kMaxWindowAttentionValues) {
    // The evaluation itself stands; only the page's data would be absurdly large.
    const auto fitting = static_cast<int64_t>(
        std::sqrt(static_cast<double>(kMaxWindowAttentionValues) / (c.model.layers * c.model.heads)));
    j["note"] = "no attention file: one window's weights are " + std::to_string(c.model.layers) + " layers x " +
                std::to_string(c.model.heads) + " heads x " + std::to_string(T) + " x " + std::to_string(T) + " = " +
                std::to_string(values) + " values (" + mebibytes(values * 4) + "), above the explorer's cap of " +
                std::to_string(kMaxWindowAttentionValues) + " (" + mebibytes(kMaxWindowAttentionValues * 4) +
                "); evaluate with --seq-len " + std::to_string(fitting) + " or less to explore this model";
    return j;
  }
  WindowAttention a;
  a.layers = c.model.layers;
  a.heads = c.model.heads;
  a.seq_len = T;
  a.window = window;
  a.tokens = window_ids;
  std::string note;
  a.token_labels = window_token_texts(folder, window_ids, note);
  a.weights.reserve(static_cast<size_t>(values));
  {
    WindowWeights capture(a.weights);
    const auto registration = model.transformer().observers().observe(capture);
    Graph g;
    NoGradGuard no_grad(g);
    model.transformer().forward_tokens(g, window_ids.data(), 1, T);
  }
  if (a.weights.size() != static_cast<size_t>(values))
    throw std::logic_error("the explorer's capture saw " + std::to_string(a.weights.size()) + " weights, expected " +
                           std::to_string(values));
  write_window_attention(file, a);
  j["attention_file"] = file.filename().string();
  j["tokens"] = note;
  return j;
}

EvalSource eval_source_kind(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status))  // the words the run path always used, then the model folder
    throw std::invalid_argument(path.string() + ": no such run folder or checkpoint file, nor a model folder; " +
                                what_each_holds());
  if (!fs::is_directory(status)) return EvalSource::checkpoint_file;
  // The files decide: a run folder keeps its config.yaml and checkpoint.bin, a model folder config.json
  // beside its weights. A folder with both kinds is read as the run it was written as.
  if (fs::exists(path / "config.yaml", ec) || fs::exists(path / "checkpoint.bin", ec)) return EvalSource::run_folder;
  if (fs::exists(path / "config.json", ec) && has_safetensors(path)) return EvalSource::model_folder;
  if (fs::exists(path / "config.json", ec))
    throw std::invalid_argument(
        path.string() +
        " has a config.json but no safetensors weights (model.safetensors or "
        "model-*-of-*.safetensors with model.safetensors.index.json); only safetensors are read");
  throw std::invalid_argument(path.string() + " is neither a run folder nor a model folder; " + what_each_holds());
}

OpenModel load_model_folder(const fs::path& folder, int threads, int64_t window) {
  OpenModelOptions options;
  options.threads = threads;
  options.window = window;
  return load_open_model(folder, options);
}

OpenModelText read_model_text(const fs::path& folder, const std::optional<std::string>& text_file,
                              const std::optional<std::string>& ids_file, int vocab) {
  if (text_file && ids_file) throw std::invalid_argument("--text and --tokens both name the text; give one of them");
  if (!text_file && !ids_file)
    throw std::invalid_argument(
        "a model folder needs a text: --text FILE (tokenized with the folder's tokenizer.json) or "
        "--tokens ids.npy (token ids made with the model's tokenizer)");
  OpenModelText t;
  if (ids_file) {
    // Any window length: the ids are one stream the windows are cut from, not windows already.
    const TokenWindows w = read_token_windows(*ids_file, vocab, std::numeric_limits<int>::max());
    t.ids = w.ids;
    t.source = "ids " + *ids_file + " (" + std::to_string(t.ids.size()) + " tokens)";
    t.bos = config_bos(folder);
    if (t.bos) t.bos_source = "config.json's bos_token_id";
  } else {
    std::error_code ec;
    if (!fs::exists(folder / "tokenizer.json", ec))
      throw std::invalid_argument("--text: " + (folder / "tokenizer.json").string() +
                                  " does not exist; --text needs the model's tokenizer.json in its folder (or give "
                                  "--tokens ids.npy made with the model's tokenizer)");
    if (!fs::exists(*text_file, ec)) throw std::invalid_argument("--text: " + *text_file + " does not exist");
    const std::string text = read_regular_file(*text_file, kMaxTextBytes, "text");
    try {
      const Tokenizer tokenizer = Tokenizer::from_path(folder);
      // Special tokens are not added: BOS goes in front of every window instead, as Gu et al. measure.
      t.ids = tokenizer.encode(text, false);
      t.bos = tokenizer.bos_id();
      if (t.bos) t.bos_source = "the tokenizer";
      t.source = "text " + *text_file + " (" + std::to_string(t.ids.size()) +
                 " tokens; tokenizer: " + tokenizer.description() + ")";
    } catch (const TokenizerError& e) {
      throw std::invalid_argument(std::string("--text: ") + e.what());
    }
    if (!t.bos) {
      t.bos = config_bos(folder);
      if (t.bos) t.bos_source = "config.json's bos_token_id";
    }
    if (t.ids.empty())
      throw std::invalid_argument("--text: " + *text_file + " tokenizes to nothing (no token to evaluate)");
    for (std::size_t i = 0; i < t.ids.size(); ++i)
      if (t.ids[i] < 0 || t.ids[i] >= vocab)
        throw std::invalid_argument("--text: token " + std::to_string(i) + " of " + *text_file + " has id " +
                                    std::to_string(t.ids[i]) + ", outside the model's vocabulary [0, " +
                                    std::to_string(vocab) +
                                    "): the folder's tokenizer.json does not belong to this model");
  }
  if (t.bos && (*t.bos < 0 || *t.bos >= vocab))
    throw std::invalid_argument("the BOS id " + std::to_string(*t.bos) + " (" + t.bos_source +
                                ") is outside the model's vocabulary [0, " + std::to_string(vocab) + ")");
  return t;
}

int model_seq_len(const std::optional<std::string>& flag, int64_t context) {
  const int limit = static_cast<int>(std::min<int64_t>(context, std::numeric_limits<int>::max()));
  if (!flag) return std::min(limit, 256);
  const int T = flag_integer("--seq-len", *flag, 2, std::numeric_limits<int>::max());
  if (T > context)
    throw std::invalid_argument("--seq-len " + *flag + " is longer than the model's context of " +
                                std::to_string(context) + " tokens (max_position_embeddings); use at most " +
                                std::to_string(context));
  return T;
}

int64_t model_windows(const std::optional<std::string>& flag) {
  return flag ? flag_integer("--windows", *flag, 1, 1000000) : 4;
}

fs::path model_eval_output(const fs::path& folder, const std::string& out, const std::string& suffix) {
  std::string name = fs::weakly_canonical(folder).filename().string();
  if (name.empty()) name = "model";
  const fs::path file = out.empty() ? fs::path("eval-" + name + suffix + ".json") : fs::path(out);
  // A model folder is someone's download, often shared: nothing is written into it.
  const fs::path dir = fs::weakly_canonical(fs::absolute(file)).parent_path();
  const fs::path model = fs::weakly_canonical(folder);
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    if (p == model)
      throw std::invalid_argument("--out: " + file.string() + " is inside the model folder " + folder.string() +
                                  "; write the evaluation elsewhere");
    if (p == p.parent_path()) break;
  }
  check_output_path(file, OutputKind::file, "--out");
  check_output_path(window_attention_path(file), OutputKind::file, "--out's attention file");
  return file;
}

}  // namespace sinklab::apps
