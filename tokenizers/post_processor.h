#pragma once
// What a post-processor of tokenizer.json does to one sequence's ids: the special tokens it puts
// before and after them (TemplateProcessing's single template, RobertaProcessing, BertProcessing, a
// Sequence of them; ByteLevel adds none).
#include <cstdint>
#include <vector>

namespace sinklab::tok {

struct PostProcessor {
  std::vector<int32_t> prefix, suffix;
  // A template (or Roberta/Bert processing) is present: it, not tokenizer_config.json, decides.
  bool has_template = false;

  void apply(std::vector<int32_t>& ids) const {
    ids.insert(ids.begin(), prefix.begin(), prefix.end());
    ids.insert(ids.end(), suffix.begin(), suffix.end());
  }
};

}  // namespace sinklab::tok
