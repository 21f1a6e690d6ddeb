#include "data/induction_task.h"

#include <cmath>
#include <string>

#include "core/observe/position_roles.h"
#include "data/vocab_size_option.h"

namespace sinklab {

InductionTask::InductionTask(int seq_len, int vocab_size)
    : seq_len_(seq_len), vocab_size_(vocab_size), period_(seq_len / 2) {
  if (vocab_size_ < 3)
    throw TaskError("induction: vocab_size must be >= 3 (BOS and two content tokens, so that a sequence can avoid "
                    "immediate repeats), got " + std::to_string(vocab_size_),
                    {"task.vocab_size"});
  if (seq_len_ < 3)
    throw TaskError("induction: seq_len must be >= 3 (BOS, one token and its repeat), got " + std::to_string(seq_len_),
                    {"task.seq_len"});
}

TaskShape InductionTask::shape() const {
  return next_token_shape(seq_len_, vocab_size_, "task.vocab_size");
}

void InductionTask::sample(int batch, Rng& rng, Split, BatchView out) const {
  if (batch < 0) throw TaskError("induction: batch must be >= 0, got " + std::to_string(batch));
  using namespace position_role;
  const auto T = static_cast<std::size_t>(seq_len_);
  const auto P = static_cast<std::size_t>(period_);
  const auto content = static_cast<uint64_t>(vocab_size_ - 1);
  for (std::size_t b = 0; b < static_cast<std::size_t>(batch); ++b) {
    int32_t* ids = out.input_ids + b * T;
    int32_t* targets = out.target_ids + b * T;
    uint8_t* roles = out.roles + b * T;
    ids[0] = 0;
    ids[1] = 1 + static_cast<int32_t>(rng.below(content));
    for (std::size_t i = 2; i <= P; ++i) {
      // Uniform over the content tokens except ids[i - 1]: draw among content - 1 and skip it.
      const auto draw = 1 + static_cast<int32_t>(rng.below(content - 1));
      ids[i] = draw >= ids[i - 1] ? draw + 1 : draw;
    }
    for (std::size_t i = P + 1; i < T; ++i) ids[i] = ids[i - P];
    for (std::size_t t = 0; t < T; ++t) {
      targets[t] = t + 1 < T ? ids[t + 1] : -1;
      roles[t] = t == 0 ? kSinkKey : (t < P ? kNoOpRow : kActiveRow);
    }
  }
}

std::vector<std::pair<std::string, double>> InductionTask::baselines() const {
  // The best loss on the no-op rows: their next token is uniform over the vocab_size - 2 tokens that are
  // not the current one.
  return {{"first_copy_chance_loss", std::log(static_cast<double>(vocab_size_ - 2))},
          {"second_copy_chance_accuracy", 1.0 / static_cast<double>(vocab_size_ - 2)}};
}

TaskRegistration induction_task_registration() {
  return {"induction",
          "a random token sequence (no immediate repeats) followed by itself; the second copy is predictable by "
          "an induction head",
          {vocab_size_option()},
          [](const TaskSettings& s) -> std::unique_ptr<Task> {
            return std::make_unique<InductionTask>(s.seq_len, static_cast<int>(s.options.integer("vocab_size")));
          }};
}

}  // namespace sinklab
