#include "data/reverse_task.h"

#include <string>

#include "core/observe/position_roles.h"
#include "data/vocab_size_option.h"

namespace sinklab {

ReverseTask::ReverseTask(int seq_len, int vocab_size)
    : seq_len_(seq_len), vocab_size_(vocab_size), length_((seq_len - 1) / 2) {
  if (vocab_size_ < 3)
    throw TaskError("reverse: vocab_size must be >= 3 (BOS, the separator and one content token), got " +
                        std::to_string(vocab_size_),
                    {"task.vocab_size"});
  if (seq_len_ < 4)
    throw TaskError("reverse: seq_len must be >= 4 (BOS, one token, the separator and the token again), got " +
                        std::to_string(seq_len_),
                    {"task.seq_len"});
}

TaskShape ReverseTask::shape() const {
  return next_token_shape(seq_len_, vocab_size_, "task.vocab_size");
}

void ReverseTask::sample(int batch, Rng& rng, Split, BatchView out) const {
  if (batch < 0) throw TaskError("reverse: batch must be >= 0, got " + std::to_string(batch));
  using namespace position_role;
  const auto T = static_cast<std::size_t>(seq_len_);
  const auto P = static_cast<std::size_t>(length_);
  const auto content = static_cast<uint64_t>(vocab_size_ - 2);
  for (std::size_t b = 0; b < static_cast<std::size_t>(batch); ++b) {
    int32_t* ids = out.input_ids + b * T;
    int32_t* targets = out.target_ids + b * T;
    uint8_t* roles = out.roles + b * T;
    ids[0] = 0;
    for (std::size_t i = 1; i <= P; ++i) ids[i] = 2 + static_cast<int32_t>(rng.below(content));
    ids[P + 1] = kSeparator;
    for (std::size_t i = P + 2; i < T; ++i) ids[i] = ids[2 * P + 2 - i];  // r_P .. r_1
    for (std::size_t t = 0; t < T; ++t) {
      const bool active = t > P && t + 1 < T;
      targets[t] = active ? ids[t + 1] : -1;
      roles[t] = t == 0 ? kSinkKey : (active ? kActiveRow : kNoOpRow);
    }
  }
}

std::vector<std::pair<std::string, double>> ReverseTask::baselines() const {
  // A model that does not find the mirror position guesses among the content tokens.
  return {{"active_chance_accuracy", 1.0 / static_cast<double>(vocab_size_ - 2)}};
}

TaskRegistration reverse_task_registration() {
  return {"reverse",
          "a random token sequence, a separator, then the sequence backwards; each answer sits at the mirror "
          "position of the row predicting it",
          {vocab_size_option()},
          [](const TaskSettings& s) -> std::unique_ptr<Task> {
            return std::make_unique<ReverseTask>(s.seq_len, static_cast<int>(s.options.integer("vocab_size")));
          }};
}

}  // namespace sinklab
