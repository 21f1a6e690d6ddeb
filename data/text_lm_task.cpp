#include "data/text_lm_task.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

#include "core/observe/position_roles.h"
#include "data/bos_option.h"
#include "data/corpus_option.h"
#include "data/text_corpus.h"
#include "data/token_cache.h"
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

// The word encoding from the token cache (data/token_cache.h) when it holds this corpus and these settings,
// else encode_corpus's, then stored there for the next process. The char encoding is never cached: it is
// one table look-up per byte, faster than reading back its 4-byte ids (KJV x 20: 1.7 s to tokenize, 3.2 s
// from the cache; docs/language-model.md).
std::shared_ptr<const EncodedText> cached_or_encoded(const TextCorpus& corpus, TextTokenizer tokenizer, int vocab_size,
                                                     double val_fraction) {
  if (tokenizer == TextTokenizer::character) return encode_corpus(corpus, tokenizer, vocab_size, val_fraction);
  const std::optional<TokenCache> cache = TokenCache::from_environment();
  if (!cache) return encode_corpus(corpus, tokenizer, vocab_size, val_fraction);
  const TokenCacheKey key = TokenCacheKey::of(corpus.text, tokenizer, vocab_size, val_fraction);
  if (std::optional<TokenCacheEntry> hit = cache->load(key)) {
    auto e = std::make_shared<EncodedText>();
    e->path = corpus.path;
    e->ids = std::move(hit->ids);
    e->train = hit->train;
    e->words = std::move(hit->words);
    return e;
  }
  auto encoded = encode_corpus(corpus, tokenizer, vocab_size, val_fraction);
  cache->store(key, encoded->ids, encoded->train, encoded->words ? &*encoded->words : nullptr);
  return encoded;
}

// One encoding per corpus file and settings per process: a task is built several times per run (config
// check, trainer, evaluation); the token cache is for the next process. An entry whose corpus was replaced
// (the file changed) is dropped.
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
  auto encoded = cached_or_encoded(*corpus, tokenizer, vocab_size, val_fraction);
  cache.push_back({corpus, tokenizer, vocab_size, val_fraction, encoded});
  return encoded;
}

std::string tokens_text(std::size_t n, TextTokenizer tokenizer) {
  return std::to_string(n) + (tokenizer == TextTokenizer::character ? " bytes" : " tokens");
}

}  // namespace

TextLmTask::TextLmTask(const std::string& corpus_path, TextTokenizer tokenizer, int vocab_size, double val_fraction,
                       int seq_len, TextLmWindows windows)
    : tokenizer_(tokenizer), seq_len_(seq_len), windows_(std::move(windows)) {
  if (!(val_fraction > 0.0 && val_fraction < 1.0))
    throw TaskError("text_lm task: val_fraction must be in (0, 1), got " + std::to_string(val_fraction),
                    {"task.val_fraction"});
  text_ = shared_encoding(load_text_corpus(corpus_path, "task.corpus"), tokenizer, vocab_size, val_fraction);
  // The corpus tokens of one window: seq_len - 1 after BOS, or seq_len packed ones.
  const auto window = static_cast<std::size_t>(windows_.bos ? seq_len_ - 1 : seq_len_);
  const std::string window_text = windows_.bos ? "seq_len - 1 = " + std::to_string(window)
                                               : "seq_len = " + std::to_string(window) + " (bos: false)";
  const auto short_part = [&](const char* part, std::size_t n) {
    std::vector<std::string> keys{"task.seq_len", "task.val_fraction", "task.corpus"};
    if (!windows_.bos) keys.push_back("task.bos");
    return TaskError("text_lm task: the " + std::string(part) + " part of task.corpus " + text_->path + " holds " +
                         tokens_text(n, tokenizer) + " (val_fraction " + format_number(val_fraction) +
                         "), fewer than one window of " + window_text +
                         "; use a longer text, another val_fraction or a shorter seq_len",
                     keys);
  };
  if (train_tokens() < window) throw short_part("training", train_tokens());
  if (validation_tokens() < window) throw short_part("validation", validation_tokens());

  sampled_train_tokens_ = windows_.train_tokens == 0 ? train_tokens() : windows_.train_tokens;
  if (windows_.train_tokens != 0 && windows_.train_tokens < window)
    throw TaskError("text_lm task: task.train_tokens " + std::to_string(windows_.train_tokens) +
                        " is fewer than one window of " + window_text + "; use at least " + std::to_string(window) +
                        ", or 0 for the whole training part",
                    {"task.train_tokens", "task.seq_len"});
  if (windows_.train_tokens > train_tokens())
    throw TaskError("text_lm task: task.train_tokens " + std::to_string(windows_.train_tokens) +
                        " is more than the training part of task.corpus " + text_->path + " holds (" +
                        tokens_text(train_tokens(), tokenizer) + "); use at most " + std::to_string(train_tokens()) +
                        ", or 0 for the whole training part",
                    {"task.train_tokens"});

  const int P = windows_.fixed_token_position;
  if (P == -1) {
    if (!windows_.fixed_token.empty())
      throw TaskError("text_lm task: task.fixed_token '" + windows_.fixed_token +
                          "' is set but task.fixed_token_position is -1 (off); set the position too, or remove "
                          "task.fixed_token",
                      {"task.fixed_token", "task.fixed_token_position"});
    return;
  }
  const int first = windows_.bos ? 1 : 0;
  if (P < first || P >= seq_len_)
    throw TaskError("text_lm task: task.fixed_token_position must be -1 (off) or " + std::to_string(first) + " .. " +
                        std::to_string(seq_len_ - 1) + " (seq_len - 1), got " + std::to_string(P) +
                        (windows_.bos && P == 0 ? ": position 0 is BOS's place (set task.bos: false to replace it)"
                                                : ""),
                    {"task.fixed_token_position", "task.seq_len", "task.bos"});
  fixed_token_id_ = fixed_token_id_of(windows_.fixed_token);
}

int32_t TextLmTask::fixed_token_id_of(const std::string& text) const {
  const auto error = [&](const std::string& why) {
    return TaskError("text_lm task: task.fixed_token '" + text + "' " + why, {"task.fixed_token"});
  };
  if (text.empty()) throw error("is empty: task.fixed_token_position needs the token it places");
  if (text_->chars) {
    if (text.size() != 1) throw error("must be one character (one byte) for the char tokenizer");
    const int32_t id = text_->chars->id_of(static_cast<unsigned char>(text[0]));
    if (id < 0) throw error("is not in the vocabulary: the corpus " + text_->path + " has no such character");
    return id;
  }
  const WordTokens tokens(text);
  if (tokens.size() != 1)
    throw error("must be one word for the word tokenizer (one token of [a-z]+ or one other byte), it is " +
                std::to_string(tokens.size()) + " tokens");
  const int32_t id = text_->words->id_of(tokens.token(0));
  if (id == WordVocabulary::kUnknown)
    throw error("is not in the vocabulary (BOS, <unk> and the vocab_size - 2 most frequent tokens of the training "
                "part); use a more frequent word or a larger task.vocab_size");
  return id;
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
  const std::size_t lead = windows_.bos ? 1 : 0;  // BOS, then T - lead corpus tokens
  const bool eval = split == Split::eval;
  const int32_t* part = text_->ids.data() + (eval ? text_->train : 0);
  const std::size_t part_tokens = eval ? validation_tokens() : sampled_train_tokens_;
  const uint64_t starts = part_tokens - (T - lead) + 1;  // the constructor checked part_tokens >= T - lead
  const auto P = static_cast<std::size_t>(windows_.fixed_token_position);
  for (std::size_t b = 0; b < static_cast<std::size_t>(batch); ++b) {
    int32_t* ids = out.input_ids + b * T;
    int32_t* targets = out.target_ids + b * T;
    uint8_t* roles = out.roles + b * T;
    const int32_t* window = part + rng.below(starts);
    if (lead == 1) ids[0] = CharVocabulary::kBos;
    std::copy_n(window, T - lead, ids + lead);
    if (fixed_token_id_ >= 0) ids[P] = fixed_token_id_;
    std::copy_n(ids + 1, T - 1, targets);  // position i predicts the token at i + 1 (the fixed one too)
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
           OptionSpec::choice(
               "tokenizer", {"char", "word"}, "char",
               "char: BOS + the corpus's distinct bytes (model.vocab_size = their number + 1; vocab_size is "
               "not read); word: lowercased [a-z]+ or one other non-space byte; ids BOS, unknown word, "
               "then the vocab_size - 2 most frequent tokens of the training part"),
           vocab_size_option(),
           OptionSpec::number("val_fraction", 0.05, Bound::open(0.0, 1.0),
                              "the last val_fraction of the corpus's bytes is the validation part (the evaluation "
                              "set's windows), the rest the training part"),
           bos_option(),
           OptionSpec::integer("fixed_token_position", -1, Bound::at_least(-1).up_to(1 << 20),
                               "-1 = off; else position P of every window (training and evaluation) holds "
                               "fixed_token instead of its corpus token, and position P - 1 is scored on it")
               .with_allowed_text("-1, or 1 .. seq_len - 1 (0 .. with bos: false)"),
           OptionSpec::text("fixed_token", "",
                            "the token fixed_token_position places: one character (char) or one word (word) of "
                            "the vocabulary"),
           OptionSpec::integer("train_tokens", 0, Bound::at_least(0),
                               "0 = the whole training part; else training windows come from its first "
                               "train_tokens tokens only (the evaluation set is unchanged)")},
          [](const TaskSettings& s) -> std::unique_ptr<Task> {
            const auto tokenizer =
                s.options.choice_index("tokenizer") == 0 ? TextTokenizer::character : TextTokenizer::word;
            TextLmWindows windows;
            windows.bos = s.options.flag("bos");
            windows.fixed_token_position = static_cast<int>(s.options.integer("fixed_token_position"));
            windows.fixed_token = s.options.text("fixed_token");
            windows.train_tokens = static_cast<std::size_t>(s.options.integer("train_tokens"));
            return std::make_unique<TextLmTask>(s.options.path("corpus"), tokenizer,
                                                static_cast<int>(s.options.integer("vocab_size")),
                                                s.options.number("val_fraction"), s.seq_len, std::move(windows));
          }};
}

}  // namespace sinklab
