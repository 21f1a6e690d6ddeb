#include "data/text_lm_task.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

#include "core/observe/position_roles.h"
#include "data/corpus_option.h"
#include "data/text_corpus.h"
#include "data/vocab_size_option.h"
#include "data/word_vocabulary.h"

namespace sinklab {

struct EncodedText {
  std::string path;
  std::vector<int32_t> ids;  // the whole corpus
  std::size_t train = 0;     // ids[0 .. train) are the training part, the rest validation
  std::optional<CharVocabulary> chars;
  std::optional<WordVocabulary> words;
  int vocab_size() const { return chars ? chars->size() : words->size(); }
};

namespace {

// Bytes [0, cut) are the training part: the last round(val_fraction * n) bytes are validation.
std::size_t training_bytes(std::size_t bytes, double val_fraction) {
  const auto validation = static_cast<std::size_t>(std::llround(val_fraction * static_cast<double>(bytes)));
  return bytes - std::min(validation, bytes);
}

std::shared_ptr<const EncodedText> encode_corpus(const TextCorpus& corpus, TextTokenizer tokenizer, int vocab_size,
                                                 double val_fraction) {
  auto e = std::make_shared<EncodedText>();
  e->path = corpus.path;
  const std::string_view text = corpus.text;
  const std::size_t cut = training_bytes(text.size(), val_fraction);
  if (tokenizer == TextTokenizer::character) {
    e->chars.emplace(text);
    e->ids = e->chars->encode(text);
    e->train = cut;
    return e;
  }
  const WordTokens tokens(text);
  std::size_t train = 0;  // the first token that starts in the validation bytes
  while (train < tokens.size() && tokens.begin(train) < cut) ++train;
  e->words.emplace(tokens, train, vocab_size);
  e->ids.resize(tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) e->ids[i] = e->words->id_of(tokens.token(i));
  e->train = train;
  return e;
}

// One encoding per corpus file and settings per process: a task is built several times per run (config
// check, trainer, evaluation). An entry whose corpus was replaced (the file changed) is dropped.
std::shared_ptr<const EncodedText> shared_encoding(const std::shared_ptr<const TextCorpus>& corpus,
                                                   TextTokenizer tokenizer, int vocab_size, double val_fraction) {
  struct Entry {
    std::weak_ptr<const TextCorpus> corpus;
    TextTokenizer tokenizer;
    int vocab_size;
    double val_fraction;
    std::shared_ptr<const EncodedText> encoded;
  };
  static std::mutex mutex;
  static std::vector<Entry> cache;
  if (tokenizer == TextTokenizer::character) vocab_size = 0;  // not a setting of the char vocabulary
  const std::lock_guard lock(mutex);
  std::erase_if(cache, [](const Entry& e) { return e.corpus.expired(); });
  for (const Entry& e : cache)
    if (e.corpus.lock() == corpus && e.tokenizer == tokenizer && e.vocab_size == vocab_size &&
        e.val_fraction == val_fraction)
      return e.encoded;
  auto encoded = encode_corpus(*corpus, tokenizer, vocab_size, val_fraction);
  cache.push_back({corpus, tokenizer, vocab_size, val_fraction, encoded});
  return encoded;
}

std::string tokens_text(std::size_t n, TextTokenizer tokenizer) {
  return std::to_string(n) + (tokenizer == TextTokenizer::character ? " bytes" : " tokens");
}

}  // namespace

TextLmTask::TextLmTask(const std::string& corpus_path, TextTokenizer tokenizer, int vocab_size, double val_fraction,
                       int seq_len)
    : tokenizer_(tokenizer), seq_len_(seq_len) {
  if (!(val_fraction > 0.0 && val_fraction < 1.0))
    throw TaskError("text_lm task: val_fraction must be in (0, 1), got " + std::to_string(val_fraction),
                    {"task.val_fraction"});
  text_ = shared_encoding(load_text_corpus(corpus_path, "task.corpus"), tokenizer, vocab_size, val_fraction);
  const auto window = static_cast<std::size_t>(seq_len_ - 1);
  const auto short_part = [&](const char* part, std::size_t n) {
    return TaskError("text_lm task: the " + std::string(part) + " part of task.corpus " + text_->path + " holds " +
                         tokens_text(n, tokenizer) + " (val_fraction " + format_number(val_fraction) +
                         "), fewer than one window of seq_len - 1 = " + std::to_string(window) +
                         "; use a longer text, another val_fraction or a shorter seq_len",
                     {"task.seq_len", "task.val_fraction", "task.corpus"});
  };
  if (train_tokens() < window) throw short_part("training", train_tokens());
  if (validation_tokens() < window) throw short_part("validation", validation_tokens());
}

TextLmTask::~TextLmTask() = default;

int TextLmTask::vocab_size() const { return text_->vocab_size(); }
std::size_t TextLmTask::train_tokens() const { return text_->train; }
std::size_t TextLmTask::validation_tokens() const { return text_->ids.size() - text_->train; }
std::span<const int32_t> TextLmTask::corpus_ids() const { return text_->ids; }

TaskShape TextLmTask::shape() const {
  if (tokenizer_ == TextTokenizer::character)
    return next_token_shape(seq_len_, vocab_size(), "task.corpus",
                            "the corpus has " + std::to_string(vocab_size() - 1) + " distinct bytes + BOS");
  return next_token_shape(seq_len_, vocab_size(), "task.vocab_size");
}

void TextLmTask::sample(int batch, Rng& rng, Split split, BatchView out) const {
  if (batch < 0) throw TaskError("text_lm task: batch must be >= 0, got " + std::to_string(batch));
  const auto T = static_cast<std::size_t>(seq_len_);
  const bool eval = split == Split::eval;
  const int32_t* part = text_->ids.data() + (eval ? text_->train : 0);
  const std::size_t part_tokens = eval ? validation_tokens() : train_tokens();
  const uint64_t starts = part_tokens - (T - 1) + 1;  // the constructor checked part_tokens >= T - 1
  for (std::size_t b = 0; b < static_cast<std::size_t>(batch); ++b) {
    int32_t* ids = out.input_ids + b * T;
    int32_t* targets = out.target_ids + b * T;
    uint8_t* roles = out.roles + b * T;
    const int32_t* window = part + rng.below(starts);
    ids[0] = CharVocabulary::kBos;
    std::copy_n(window, T - 1, ids + 1);
    std::copy_n(window, T - 1, targets);  // position i predicts the token at i + 1
    targets[T - 1] = -1;
    std::fill_n(roles, T, uint8_t{0});
    roles[0] = position_role::kSinkKey;
  }
}

std::vector<int32_t> TextLmTask::encode(std::string_view text) const {
  return text_->chars ? text_->chars->encode(text) : text_->words->encode(text);
}

std::string TextLmTask::decode(std::span<const int32_t> ids) const {
  return text_->chars ? text_->chars->decode(ids.data(), ids.size()) : text_->words->decode(ids.data(), ids.size());
}

std::string TextLmTask::token_label(int32_t id) const {
  if (id == 0) return "<bos>";
  return decode(std::span<const int32_t>(&id, 1));
}

TaskRegistration text_lm_task_registration() {
  return {"text_lm",
          "next-token language modelling on a text file, by character or word (token ids, next-token cross-entropy)",
          {corpus_option(),
           OptionSpec::choice("tokenizer", {"char", "word"}, "char",
                              "char: BOS + the corpus's distinct bytes (model.vocab_size = their number + 1; vocab_size is "
                              "not read); word: lowercased [a-z]+ or one other non-space byte; ids BOS, unknown word, "
                              "then the vocab_size - 2 most frequent tokens of the training part"),
           vocab_size_option(),
           OptionSpec::number("val_fraction", 0.05, Bound::open(0.0, 1.0),
                              "the last val_fraction of the corpus's bytes is the validation part (the evaluation "
                              "set's windows), the rest the training part")},
          [](const TaskSettings& s) -> std::unique_ptr<Task> {
            const auto tokenizer = s.options.choice_index("tokenizer") == 0 ? TextTokenizer::character : TextTokenizer::word;
            return std::make_unique<TextLmTask>(s.options.path("corpus"), tokenizer,
                                                static_cast<int>(s.options.integer("vocab_size")),
                                                s.options.number("val_fraction"), s.seq_len);
          }};
}

}  // namespace sinklab
