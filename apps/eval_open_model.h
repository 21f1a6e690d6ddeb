#pragma once
// `sinklab eval MODEL_DIR`: what the eval command needs to run its analysis on a Hugging Face model
// folder instead of a trained run. The positional argument is told apart by its files; the model is
// loaded with models/open_models/open_model_loader.h; the text comes from --text FILE (tokenized with the
// folder's tokenizer.json) or --tokens ids.npy and is cut into windows (models/token_window_eval_set.h).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/open_models/open_model_loader.h"

namespace sinklab::apps {

enum class EvalSource { run_folder, checkpoint_file, model_folder };

// A folder holding config.yaml or checkpoint.bin is a run; a file a checkpoint; a folder with
// config.json and *.safetensors a model folder. Throws std::invalid_argument with one message naming
// what each kind holds for a missing path or a folder that is neither.
EvalSource eval_source_kind(const std::filesystem::path& path);

// The model folder, loaded with `threads` (>= 1) and its memory checked for one window of `window`
// tokens. OpenModelError (exit 2) for an unknown model_type and the like.
OpenModel load_model_folder(const std::filesystem::path& folder, int threads, int64_t window);

// The text an open model reads, as one stream of ids (without BOS).
struct OpenModelText {
  std::vector<int32_t> ids;
  std::optional<int32_t> bos;  // the BOS id, when the tokenizer (or, failing that, config.json) names one
  std::string source;          // for people: "text FILE (byte-level BPE, 80 tokens)" or "ids FILE"
  std::string bos_source;      // where the BOS id came from: "the tokenizer", "config.json's bos_token_id" or ""
};

// Exactly one of text_file (tokenized with the folder's tokenizer.json, special tokens not added: BOS is
// put in front of every window instead) and ids_file (read_token_windows: [L] or [windows, L], rows
// joined into one stream). Every id must lie in [0, vocab). Throws std::invalid_argument (exit 2) for
// a missing file, a folder without tokenizer.json, a text that tokenizes to nothing, an id outside the
// vocabulary; NpyError for a damaged ids file.
OpenModelText read_model_text(const std::filesystem::path& folder, const std::optional<std::string>& text_file,
                              const std::optional<std::string>& ids_file, int vocab);

// --seq-len (default min(context, 256); at least 2, at most the context) and --windows (default 4).
int model_seq_len(const std::optional<std::string>& flag, int64_t context);
int64_t model_windows(const std::optional<std::string>& flag);

// eval-<folder name><suffix>.json in the current directory; --out must not point into the model folder.
std::filesystem::path model_eval_output(const std::filesystem::path& folder, const std::string& out,
                                        const std::string& suffix);

// The explorer's attention file (report/explorer/open_model_attention_file.h): the weights of one evaluation
// window, every layer and head, for `sinklab report eval-<folder>.json`.
// --explore-window J: which of the `windows` evaluated windows (default 0); exit 2 outside [0, windows).
int64_t explore_window(const std::optional<std::string>& flag, int64_t windows);
// <json stem>.attention.npz beside the eval JSON.
std::filesystem::path window_attention_path(const std::filesystem::path& eval_json);
// Each id's text for people: the folder's tokenizer.json decoding the id alone (special tokens kept),
// else (no tokenizer.json, or one that cannot read the id) the id as decimal text; `note` says which.
std::vector<std::string> window_token_texts(const std::filesystem::path& folder, const std::vector<int32_t>& ids,
                                            std::string& note);
// Runs `model` (as it is set: no ablation, no hooks) on one window and writes every layer's and head's
// weights with the window's tokens to `file`, unless layers x heads x T x T is above
// kMaxWindowAttentionValues. Returns the eval JSON's "explorer" field: the file's name (relative to the
// JSON's folder), window, seq_len and weights, or a null file and a note saying why none was written.
nlohmann::json write_explore_attention(Model& model, const std::filesystem::path& folder,
                                       const std::vector<int32_t>& window_ids, int64_t window,
                                       const std::filesystem::path& file);

}  // namespace sinklab::apps
