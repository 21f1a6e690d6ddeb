#pragma once
// The Bigram-Backcopy task (Guo et al. 2024, "Active-Dormant Attention Heads", tasks-spec.md): bytes of
// a text corpus drawn from the corpus's bigram chain (data/bigram_chain.h), except that after one of
// the k most frequent bytes (the triggers) the next byte copies the byte before the trigger.
//
// A sample of seq_len ids (CharVocabulary ids of `task.corpus`; BOS = 0):
//   position 0 = BOS; position 1 ~ the corpus marginal with the triggers removed and renormalized;
//   for t >= 1: x_{t+1} = x_{t-1} if x_t is a trigger (back-copy), else x_{t+1} ~ p(. | x_t).
// Guo's code draws position 2 from the bigram row of position 1 without the trigger rule; as position 1
// is never a trigger, the rule above draws it the same way.
// Targets: the next id at positions 0 .. seq_len - 2; the last position is not scored (-1).
// Roles: BOS is the sink key; rows 1 .. seq_len - 1 whose token is a trigger are active rows (the copy
// is deterministic: optimum loss 0), the other rows 1 .. seq_len - 1 are no-op rows (the head has
// nothing to copy; optimum loss = the chain's conditional entropy, markov_entropy()).
// Both splits draw alike: the evaluation set differs by its seed only.
#include <memory>

#include "data/bigram_chain.h"
#include "data/task_registration.h"
#include "data/text_corpus.h"

namespace sinklab {

class BigramBackcopyTask final : public Task {
 public:
  // Throws TaskError naming task.seq_len (< 3: no row after position 1 to score) or task.triggers.
  BigramBackcopyTask(int seq_len, std::shared_ptr<const TextCorpus> corpus, int triggers);

  std::string_view name() const override { return "bigram_backcopy"; }
  TaskShape shape() const override;
  void sample(int batch, Rng& rng, Split split, BatchView out) const override;
  std::vector<std::pair<std::string, double>> baselines() const override;

  const BigramChain& chain() const { return chain_; }
  // The expected next-token loss (nats) of the exact chain on the scored no-op rows (non-trigger rows
  // 1 .. seq_len - 2): the conditional entropy H(p(. | x_t)) averaged over the law of x_t at those rows
  // in this task's sequences (computed exactly by propagating the pair (x_{t-1}, x_t)), the best
  // eval_no_op_loss a model can reach.
  double markov_entropy() const { return markov_entropy_; }

 private:
  int seq_len_;
  std::shared_ptr<const TextCorpus> corpus_;
  BigramChain chain_;
  double markov_entropy_ = 0.0;
};

TaskRegistration bigram_backcopy_task_registration();

}  // namespace sinklab
