#pragma once
// The copy task: reproduce the token seen a fixed number of positions back. A small token task that
// exercises the token path end to end (embedding, logits, next-token cross-entropy, accuracy) and
// serves as the worked example of a task plug-in in docs/extending.md.
//
// A sample is seq_len token ids: BOS (id 0) at position 0, then ids drawn uniformly from 1..vocab_size-1,
// in position order, from the task's generator (so sample b only depends on the draws of samples
// before it). The target of position i > offset is the id at position i - offset; positions 0..offset
// have nothing to copy and are not scored (target -1).
// Roles: BOS is the sink key; rows 1..offset are no-op rows (nothing to copy yet); rows > offset are
// active rows. Both splits draw alike: the evaluation set differs by its seed only.
#include "data/task_registration.h"

namespace sinklab {

class CopyTask final : public Task {
 public:
  // Throws TaskError (naming task.offset and task.seq_len) when no position is left to score.
  CopyTask(int seq_len, int vocab_size, int offset);

  std::string_view name() const override { return "copy"; }
  TaskShape shape() const override;
  void sample(int batch, Rng& rng, Split split, BatchView out) const override;

 private:
  int seq_len_, vocab_size_, offset_;
};

TaskRegistration copy_task_registration();

}  // namespace sinklab
