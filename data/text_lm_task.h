#pragma once
// The text_lm task: next-token language modelling on a text file (docs/language-model.md).
//
// The corpus (`task.corpus`, data/text_corpus.h) is cut by position: its last `val_fraction` of bytes
// is the validation part, the rest the training part (the word tokenizer cuts at the first token that
// starts in the validation bytes). Tokenizers:
//   char: id 0 = BOS, ids 1..n = the corpus's distinct bytes in ascending order (CharVocabulary);
//   word: data/word_vocabulary.h, BOS, <unk>, then the vocab_size - 2 most frequent tokens of the
//         training part.
// A sample is a window: BOS, then seq_len - 1 consecutive tokens from a uniformly drawn start inside
// the training part (Split::train) or the validation part (Split::eval, the evaluation set). Position
// i < seq_len - 1 is scored on the token after it; the last position has no target (-1).
// Window options (TextLmWindows, Gu et al.'s experiments): `bos: false` packs seq_len corpus tokens
// with no BOS; `fixed_token_position` P puts `fixed_token` at position P of every window (its corpus
// token is overwritten, so position P - 1 is scored on it); `train_tokens` N draws training windows
// from the first N tokens of the training part only (the evaluation set is unchanged).
// Roles: position 0 (BOS, or the first packed token) is the sink key; no row flags (a language model
// has no no-op or active rows, so the statistics over all rows apply: BOS mass by row, Gu's sink
// score and sink rate).
// The corpus is encoded once per (file, tokenizer, vocab_size, val_fraction) per process and shared; a
// later process reads word ids from the token cache (data/token_cache.h).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "data/task_registration.h"

namespace sinklab {

enum class TextTokenizer { character, word };

struct EncodedText;  // the corpus as ids, its split and its vocabulary (data/text_lm_task.cpp)

// How windows are cut (the defaults are the plain task: BOS first, the whole training part).
struct TextLmWindows {
  bool bos = true;                // false: seq_len packed corpus tokens, position 0 the first of them
  int fixed_token_position = -1;  // -1: off; else 0 .. seq_len - 1 (not 0 with bos)
  std::string fixed_token;        // one character (char) or one word (word) of the vocabulary
  std::size_t train_tokens = 0;   // 0: the whole training part; else its first train_tokens tokens
};

class TextLmTask final : public Task {
 public:
  // Reads and encodes the corpus (or reuses this process's encoding of it). Throws TaskError naming the
  // keys when the file cannot be read, the word vocabulary cannot be filled, a part is shorter than
  // a window, or a window option does not fit (position out of range, token not in the vocabulary,
  // train_tokens shorter than a window or longer than the training part).
  TextLmTask(const std::string& corpus_path, TextTokenizer tokenizer, int vocab_size, double val_fraction, int seq_len,
             TextLmWindows windows = {});
  ~TextLmTask() override;

  std::string_view name() const override { return "text_lm"; }
  TaskShape shape() const override;
  void sample(int batch, Rng& rng, Split split, BatchView out) const override;

  TextTokenizer tokenizer() const { return tokenizer_; }
  int vocab_size() const;
  std::size_t train_tokens() const;  // the whole training part
  // The tokens training windows are drawn from: train_tokens() or the window option's train_tokens.
  std::size_t sampled_train_tokens() const { return sampled_train_tokens_; }
  // The fixed token's id, or -1 when fixed_token_position is off.
  int32_t fixed_token_id() const { return fixed_token_id_; }
  std::size_t validation_tokens() const;
  // The whole corpus as ids (training part first), for tests and analyses.
  std::span<const int32_t> corpus_ids() const;

  // Text -> ids without BOS. char: a byte the corpus lacks is a TaskError naming it; word: unknown
  // words are <unk>.
  std::vector<int32_t> encode(std::string_view text) const;
  // Ids -> text; BOS is skipped (word: the readable rendering of WordVocabulary::decode).
  std::string decode(std::span<const int32_t> ids) const;
  // "<bos>" for BOS, else the id's character (a byte) or word.
  std::string token_label(int32_t id) const override;

 private:
  // The fixed token's id, checked against the vocabulary; TaskError naming task.fixed_token otherwise.
  int32_t fixed_token_id_of(const std::string& text) const;

  TextTokenizer tokenizer_;
  int seq_len_;
  TextLmWindows windows_;
  std::size_t sampled_train_tokens_ = 0;
  int32_t fixed_token_id_ = -1;
  std::shared_ptr<const EncodedText> text_;
};

TaskRegistration text_lm_task_registration();

}  // namespace sinklab
