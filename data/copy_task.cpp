#include "data/copy_task.h"

#include <string>

#include "core/observe/position_roles.h"
#include "data/vocab_size_option.h"

namespace sinklab {

CopyTask::CopyTask(int seq_len, int vocab_size, int offset)
    : seq_len_(seq_len), vocab_size_(vocab_size), offset_(offset) {
  if (vocab_size_ < 2) throw TaskError("copy task: vocab_size must be >= 2 (BOS and one content token), got " +
                                       std::to_string(vocab_size_), {"task.vocab_size"});
  if (offset_ < 1 || offset_ + 1 >= seq_len_)
    throw TaskError("copy task: offset must be in 1 .. seq_len - 2 so that some position has a token to copy, but "
                    "offset is " + std::to_string(offset_) + " and seq_len " + std::to_string(seq_len_),
                    {"task.offset", "task.seq_len"});
}

TaskShape CopyTask::shape() const {
  return next_token_shape(seq_len_, vocab_size_, "task.vocab_size");
}

void CopyTask::sample(int batch, Rng& rng, Split, BatchView out) const {
  if (batch < 0) throw TaskError("copy task: batch must be >= 0, got " + std::to_string(batch));
  using namespace position_role;
  const auto T = static_cast<std::size_t>(seq_len_);
  const auto content = static_cast<uint64_t>(vocab_size_ - 1);
  for (std::size_t b = 0; b < static_cast<std::size_t>(batch); ++b) {
    int32_t* ids = out.input_ids + b * T;
    int32_t* targets = out.target_ids + b * T;
    uint8_t* roles = out.roles + b * T;
    ids[0] = 0;
    for (std::size_t i = 1; i < T; ++i) ids[i] = 1 + static_cast<int32_t>(rng.below(content));
    for (std::size_t i = 0; i < T; ++i) {
      const bool scored = i > static_cast<std::size_t>(offset_);
      targets[i] = scored ? ids[i - static_cast<std::size_t>(offset_)] : -1;
      roles[i] = i == 0 ? kSinkKey : (scored ? kActiveRow : kNoOpRow);
    }
  }
}

TaskRegistration copy_task_registration() {
  return {"copy",
          "reproduce the token `offset` positions back (token ids, next-token cross-entropy)",
          {vocab_size_option(),
           OptionSpec::integer("offset", 4, Bound::at_least(1).up_to(65535),
                               "how far back the copied token is; positions 0 .. offset are not scored")},
          [](const TaskSettings& s) -> std::unique_ptr<Task> {
            return std::make_unique<CopyTask>(s.seq_len, static_cast<int>(s.options.integer("vocab_size")),
                                              static_cast<int>(s.options.integer("offset")));
          }};
}

}  // namespace sinklab
