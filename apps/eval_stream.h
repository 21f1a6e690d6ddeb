#pragma once
// `sinklab eval RUN_DIR|CHECKPOINT --stream --window W[,W..] [--keep-first K[,K..]] [--tokens N] [--out FILE]`:
// streaming evaluation of a text_lm run (models/streaming_evaluation.h) for every pair K < W, next to
// the dense baseline of the run's own windows. Writes RUN_DIR/eval/stream.json (or FILE), prints a
// markdown table and draws RUN_DIR/eval/stream.svg (beside FILE with --out) when gnuplot is installed.
#include <optional>
#include <string>

namespace sinklab::apps {

struct StreamFlags {
  std::string run;
  std::optional<std::string> windows;    // --window, as typed
  std::string keep_first = "0,1,2,4";    // --keep-first: the spec's baselines (docs/sinks-in-language-models.md)
  std::optional<std::string> tokens;     // --tokens; default 4 x task.seq_len, at most the validation part
  std::string out;
};

void run_stream_eval(const StreamFlags& flags);

}  // namespace sinklab::apps
