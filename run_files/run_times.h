#pragma once
// Where a run's wall time went, as summary.json's "time_seconds" records it and `sinklab train` prints it:
// the invocation that finished the run, as wall_seconds (a resumed run's earlier pieces are not timed). The
// phases do not overlap; their sum is the time from the start of the train command (or sinklab.train) to
// the summary:
//   setup        config, corpus, model and optimizer before the first step
//   steps        the training steps (forward, backward, update, the training-batch statistics)
//   evaluations  evaluation passes on the evaluation set, during training and the final one
//   analysis     what the final evaluation adds (Gu's sink rates, extreme tokens, onsets), snapshots taken
//   writing      checkpoints, metrics lines, snapshots, attention maps
#include <string>

#include <nlohmann/json.hpp>

namespace sinklab {

struct RunTimes {
  double setup = 0, steps = 0, evaluations = 0, analysis = 0, writing = 0;

  double total() const { return setup + steps + evaluations + analysis + writing; }
  bool operator==(const RunTimes&) const = default;
};

nlohmann::json run_times_json(const RunTimes& times);
// Throws JsonFieldError (run_files/json_fields.h) naming `where`.key for a missing, mistyped or negative phase.
RunTimes parse_run_times(const nlohmann::json& j, const std::string& where);
// "time: setup 1.20 s, steps 3.30 s, evaluations 20.0 s, analysis 9.80 s, writing 4.10 s; total 38.4 s".
std::string format_run_times(const RunTimes& times);

}  // namespace sinklab
