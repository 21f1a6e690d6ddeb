#pragma once
// `sinklab eval RUN_DIR|CHECKPOINT --stream --window W[,W..] [--keep-first K[,K..]] [--tokens N] [--out FILE]`:
// streaming evaluation of a text_lm run (models/streaming_evaluation.h) for every pair K < W, next to
// the dense baseline of the run's own windows. Writes RUN_DIR/eval/stream.json (or FILE), prints a
// markdown table and draws RUN_DIR/eval/stream.svg (beside FILE with --out) when gnuplot is installed.
// On a Hugging Face model folder (`sinklab eval MODEL_DIR --stream --text FILE|--tokens ids.npy ...`) the
// stream is the whole text, BOS first when the model has one; the output is eval-<folder>-stream.json.
#include <optional>
#include <string>

namespace sinklab::apps {

struct StreamFlags {
  std::string run;
  std::optional<std::string> windows;    // --window, as typed
  std::string keep_first = "0,1,2,4";    // --keep-first: the spec's baselines (docs/sinks-in-language-models.md)
  std::optional<std::string> tokens;     // --tokens; default 4 x task.seq_len, at most the validation part
                                         // (a model folder: the ids file)
  std::string out;
  std::optional<std::string> text;       // a model folder: --text FILE
  int threads = 0;                       // a model folder: --threads (0 = OpenMP's default)
  // --method: kv-cache (StreamingLLM's, each token read once), recompute (every window recomputed), or
  // auto: kv-cache on a model folder that can decode from a cache, recompute otherwise (runs keep the
  // method their numbers in docs/ were measured with).
  std::string method = "auto";
};

void run_stream_eval(const StreamFlags& flags);
// The same on a model folder (apps/eval_open_model.h).
void run_model_stream_eval(const StreamFlags& flags);

}  // namespace sinklab::apps
