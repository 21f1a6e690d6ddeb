#pragma once
// The reverse task: a random token sequence, a separator, then the same sequence backwards. Each
// answer token sits at the mirror position of the row that predicts it, so the active rows look back
// 1, 3, 5, ... positions: a position-dependent lookup (unlike copy's fixed offset and induction's
// content match), after a first half of rows that have nothing to look up.
//
// Ids: BOS = 0, the separator 1, content tokens 2 .. vocab_size - 1 (task.vocab_size counts BOS and the
// separator, as model.vocab_size does).
// A sample of seq_len = T ids: x = [BOS, r_1 .. r_P, SEP, r_P .. r_1] truncated to T, where P = (T - 1) / 2
// (integer division) and each r_j is uniform over the content tokens. Even T holds the whole reversal;
// odd T lacks its last token r_1.
// Targets (next token): row t = P + 1 .. T - 2 (the separator and the reversal but its last token)
// predicts x_{t+1} = r_{2P+1-t}, which sits at position 2P + 1 - t; every other row is not scored (-1):
// rows 1 .. P - 1 would predict a fresh random token, row P the separator (fixed by position), and
// row T - 1 has no next token.
// Roles: BOS is the sink key; rows 1 .. P and T - 1 are no-op rows (nothing to look up); rows
// P + 1 .. T - 2 are active rows. Both splits draw alike: the evaluation set differs by its seed only.
#include "data/task_registration.h"

namespace sinklab {

class ReverseTask final : public Task {
 public:
  // Throws TaskError naming task.vocab_size (< 3: no content token besides BOS and the separator) or
  // task.seq_len (< 4: no scored row).
  ReverseTask(int seq_len, int vocab_size);

  std::string_view name() const override { return "reverse"; }
  TaskShape shape() const override;
  void sample(int batch, Rng& rng, Split split, BatchView out) const override;
  std::vector<std::pair<std::string, double>> baselines() const override;

  int length() const { return length_; }  // P, the length of r

  static constexpr int32_t kSeparator = 1;

 private:
  int seq_len_, vocab_size_, length_;
};

TaskRegistration reverse_task_registration();

}  // namespace sinklab
