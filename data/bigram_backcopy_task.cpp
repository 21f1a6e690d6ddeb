#include "data/bigram_backcopy_task.h"

#include <string>
#include <vector>

#include "core/observe/position_roles.h"
#include "data/corpus_option.h"

namespace sinklab {
namespace {

// Expected H(p(. | x_t)) over the non-trigger rows t = 1 .. seq_len - 2, weighting each row by the
// probability that x_t is not a trigger. The state is the pair (x_{t-1}, x_t) (a back-copy needs
// x_{t-1}); its law is propagated exactly, one position at a time.
double expected_markov_entropy(const BigramChain& chain, int seq_len) {
  const auto ids = static_cast<size_t>(chain.vocab_size());  // BOS included
  std::vector<double> law(ids * ids, 0.0), next(ids * ids, 0.0);
  double first_total = 0.0;
  for (size_t c = 1; c < ids; ++c)
    if (!chain.is_trigger(static_cast<int32_t>(c))) first_total += chain.marginal(static_cast<int32_t>(c));
  for (size_t c = 1; c < ids; ++c)
    if (!chain.is_trigger(static_cast<int32_t>(c)))
      law[c] = chain.marginal(static_cast<int32_t>(c)) / first_total;  // (BOS, c)
  double weighted = 0.0, weight = 0.0;
  for (int t = 1; t <= seq_len - 2; ++t) {
    std::fill(next.begin(), next.end(), 0.0);
    for (size_t prev = 0; prev < ids; ++prev)
      for (size_t cur = 1; cur < ids; ++cur) {
        const double p = law[prev * ids + cur];
        if (p == 0.0) continue;
        const auto c = static_cast<int32_t>(cur);
        if (chain.is_trigger(c)) {
          next[cur * ids + prev] += p;
          continue;
        }
        weighted += p * chain.row_entropy(c);
        weight += p;
        for (size_t to = 1; to < ids; ++to) next[cur * ids + to] += p * chain.conditional(c, static_cast<int32_t>(to));
      }
    law.swap(next);
  }
  return weight > 0.0 ? weighted / weight : 0.0;
}

}  // namespace

BigramBackcopyTask::BigramBackcopyTask(int seq_len, std::shared_ptr<const TextCorpus> corpus, int triggers)
    : seq_len_(seq_len), corpus_(std::move(corpus)), chain_(corpus_->text, triggers) {
  if (seq_len_ < 3)
    throw TaskError("bigram_backcopy: seq_len must be >= 3 (BOS, a first byte and one byte to predict from it), got " +
                        std::to_string(seq_len_),
                    {"task.seq_len"});
  markov_entropy_ = expected_markov_entropy(chain_, seq_len_);
}

TaskShape BigramBackcopyTask::shape() const {
  return next_token_shape(seq_len_, chain_.vocab_size(), "task.corpus",
                          "the corpus has " + std::to_string(chain_.vocab_size() - 1) + " distinct bytes + BOS");
}

void BigramBackcopyTask::sample(int batch, Rng& rng, Split, BatchView out) const {
  if (batch < 0) throw TaskError("bigram_backcopy: batch must be >= 0, got " + std::to_string(batch));
  using namespace position_role;
  const auto T = static_cast<std::size_t>(seq_len_);
  for (std::size_t b = 0; b < static_cast<std::size_t>(batch); ++b) {
    int32_t* ids = out.input_ids + b * T;
    int32_t* targets = out.target_ids + b * T;
    uint8_t* roles = out.roles + b * T;
    ids[0] = CharVocabulary::kBos;
    ids[1] = chain_.sample_first(rng);
    for (std::size_t t = 1; t + 1 < T; ++t)
      ids[t + 1] = chain_.is_trigger(ids[t]) ? ids[t - 1] : chain_.sample_next(ids[t], rng);
    for (std::size_t t = 0; t < T; ++t) {
      targets[t] = t + 1 < T ? ids[t + 1] : -1;
      roles[t] = t == 0 ? kSinkKey : (chain_.is_trigger(ids[t]) ? kActiveRow : kNoOpRow);
    }
  }
}

std::vector<std::pair<std::string, double>> BigramBackcopyTask::baselines() const {
  return {{"markov_entropy", markov_entropy_}};
}

TaskRegistration bigram_backcopy_task_registration() {
  return {"bigram_backcopy",
          "bytes from a corpus's bigram chain; after a trigger (a most frequent byte) the next byte copies the one "
          "before the trigger (Guo et al. 2024)",
          {corpus_option(),
           OptionSpec::integer("triggers", 3, Bound::at_least(1).up_to(255),
                               "how many of the corpus's most frequent bytes are triggers (ties: smaller byte first)")},
          [](const TaskSettings& s) -> std::unique_ptr<Task> {
            return std::make_unique<BigramBackcopyTask>(s.seq_len,
                                                        load_text_corpus(s.options.path("corpus"), "task.corpus"),
                                                        static_cast<int>(s.options.integer("triggers")));
          }};
}

}  // namespace sinklab
