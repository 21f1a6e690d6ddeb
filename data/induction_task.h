#pragma once
// The induction task (Olsson et al. 2022; tasks-spec.md): a random token sequence, then the same sequence
// again. A model with an induction head predicts the second copy perfectly; without one it is at chance.
//
// Ids: BOS = 0 and content tokens 1 .. vocab_size - 1 (task.vocab_size counts BOS, as model.vocab_size
// does, so the two keys are equal; the spec's "V plus BOS" is vocab_size - 1 content tokens here). The
// default is 16, not the spec's 64: the key shares copy's declaration (data/vocab_size_option.h).
// A sample of seq_len ids: x = [BOS, r, r] truncated to seq_len, where r has P = seq_len / 2 (integer
// division, = ceil((seq_len - 1) / 2)) tokens: r_0 uniform over the content tokens, each next r_i uniform
// over the content tokens other than r_{i-1} (no immediate repeats inside r). When seq_len - 1 is odd
// the second copy lacks its last token (the truncation).
// Targets: the next id at positions 0 .. seq_len - 2, all scored (the first copy is at chance and counts
// in eval_loss); the last position is not scored (-1).
// Roles: BOS is the sink key; rows 1 .. P - 1 (the first copy, whose next token is fresh: nothing to copy,
// best loss ln(vocab_size - 2)) are no-op rows; rows P .. seq_len - 1 (each predicting a token the first
// copy fixes) are active rows, so eval_active_accuracy is the task's metric. Row P (the last token of
// the first copy) is active although the spec counts it in the first copy: its target r_0 sits at
// position 1, a fixed distance back, so a model copies it by position (as a no-op row it made the
// softmax config's no-op loss 3.20 nats, below the chance loss ln 30 = 3.40). Both splits draw alike.
#include "data/task_registration.h"

namespace sinklab {

class InductionTask final : public Task {
 public:
  // Throws TaskError naming task.vocab_size (< 3: no sequence without immediate repeats) or task.seq_len
  // (< 3: no second copy).
  InductionTask(int seq_len, int vocab_size);

  std::string_view name() const override { return "induction"; }
  TaskShape shape() const override;
  void sample(int batch, Rng& rng, Split split, BatchView out) const override;
  std::vector<std::pair<std::string, double>> baselines() const override;

  int period() const { return period_; }  // P, the length of r

 private:
  int seq_len_, vocab_size_, period_;
};

TaskRegistration induction_task_registration();

}  // namespace sinklab
