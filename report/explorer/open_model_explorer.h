#pragma once
// The sink explorer of an open model on a text: `sinklab report eval-<folder>.json` reads what
// `sinklab eval MODEL_DIR` wrote (the JSON and the attention file it names,
// report/explorer/open_model_attention_file.h) and writes one offline page: the window's tokens as a
// strip (hover a query token: every key token coloured by its weight in the selected head; or hover a
// key token: who attends to it), a layer x head grid labelled with each head's alpha_0 and sink score,
// the selected head's [T, T] heatmap and a colour bar. The page is the explorer's
// (report/explorer/explorer_page.h: explorer.html, explorer.js, explorer.css, explorer-data.js) with
// its own script and styles, open_model_explorer.{js,css}.
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace sinklab {

// One message for a JSON that is not an eval output of a model folder, or whose attention file is
// missing, damaged or does not belong to it.
class OpenModelExplorerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// True when `eval` has the fields `sinklab eval MODEL_DIR` writes (model, family, model_type, layers,
// heads_per_layer, seq_len, heads).
bool is_open_model_eval(const nlohmann::json& eval);

// <stem>-report beside the JSON: where the page goes without --out.
std::filesystem::path open_model_explorer_dir(const std::filesystem::path& eval_json);

// Writes the page into out_dir and returns the path of its explorer.html. Throws OpenModelExplorerError
// (the JSON is not such an output, has no attention file, or the file is missing or damaged) and
// std::runtime_error when a file cannot be written.
std::filesystem::path write_open_model_explorer(const std::filesystem::path& eval_json,
                                                const std::filesystem::path& out_dir);

}  // namespace sinklab
