// `sinklab sample RUN_DIR --prompt TEXT --tokens N [--temperature T] [--seed S] [--checkpoint FILE]`:
// generates text from a trained text_lm run (models/text_sampler.h) and prints the prompt with its
// continuation. The prompt is encoded with the run's own vocabulary (its task.corpus and tokenizer).
// docs/language-model.md shows an example.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "apps/commands.h"
#include "config_loading/config_loader.h"
#include "core/thread_count.h"
#include "data/task_registry.h"
#include "data/text_lm_task.h"
#include "layers/normalizers/normalizer_registry.h"
#include "models/model_loader.h"
#include "models/text_sampler.h"

namespace sinklab::apps {
namespace {

namespace fs = std::filesystem;

struct SampleFlags {
  std::string run;
  std::string prompt;
  std::string tokens;
  std::string temperature = "0";
  std::string seed = "0";
  std::string checkpoint;
};

// The whole of `text` as a number, or one clear error naming the flag.
template <class Parse>
auto parse_flag(const std::string& flag, const std::string& text, const std::string& expected, Parse parse) {
  std::size_t used = 0;
  try {
    const auto value = parse(text, &used);
    if (used == text.size() && !text.empty()) return value;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(flag + ": expected " + expected + ", got '" + text + "'");
}

SamplingSettings settings_of(const SampleFlags& f) {
  SamplingSettings s;
  const long long tokens = parse_flag("--tokens", f.tokens, "a whole number in 0 .. 1000000",
                                      [](const std::string& t, std::size_t* used) { return std::stoll(t, used); });
  if (tokens < 0 || tokens > 1000000)
    throw std::invalid_argument("--tokens: expected a whole number in 0 .. 1000000, got '" + f.tokens + "'");
  s.tokens = static_cast<int>(tokens);
  s.temperature = parse_flag("--temperature", f.temperature, "a number >= 0 (0 = greedy)",
                             [](const std::string& t, std::size_t* used) { return std::stod(t, used); });
  if (!std::isfinite(s.temperature) || s.temperature < 0)
    throw std::invalid_argument("--temperature: expected a number >= 0 (0 = greedy), got '" + f.temperature + "'");
  if (f.seed.starts_with('-'))
    throw std::invalid_argument("--seed: expected a whole number in 0 .. 2^64-1, got '" + f.seed + "'");
  s.seed = parse_flag("--seed", f.seed, "a whole number in 0 .. 2^64-1",
                      [](const std::string& t, std::size_t* used) { return std::stoull(t, used); });
  return s;
}

void run_sample(const SampleFlags& f) {
  const SamplingSettings settings = settings_of(f);  // before anything is loaded
  const fs::path dir(f.run);
  if (!fs::is_directory(dir)) throw std::invalid_argument(f.run + ": no such run folder");
  if (!fs::exists(dir / "config.yaml"))
    throw std::invalid_argument(f.run + ": " + (dir / "config.yaml").string() +
                                " is missing, so this is not a sinklab run folder");
  // No memory check: sampling holds one model and one window, not training batches.
  const RunConfig config = load_run_config(dir / "config.yaml", {}, std::nullopt);
  if (config.task.name != "text_lm")
    throw std::invalid_argument(f.run + " is a run of task " + config.task.name +
                                "; sinklab sample needs a language model (task.name: text_lm)");
  const std::unique_ptr<Task> task = make_task(config.task, config.model.residual);
  const auto& lm = dynamic_cast<const TextLmTask&>(*task);
  std::vector<int32_t> ids;
  try {
    ids = lm.encode(f.prompt);
  } catch (const TaskError& e) {
    throw std::invalid_argument("--prompt: " + std::string(e.what()));
  }
  const fs::path checkpoint = f.checkpoint.empty() ? dir / "checkpoint.bin" : fs::path(f.checkpoint);
  if (!fs::exists(checkpoint)) throw std::invalid_argument(checkpoint.string() + ": no such checkpoint file");
  const std::unique_ptr<Model> model = load_model(checkpoint, config);
  set_thread_count(config.threads);  // the run's thread count
  SamplingSettings with_context = settings;
  // The last position of a training window has no target, so predicting from it was never trained (a
  // learned position embedding of it gets no gradient): predict from positions 0 .. seq_len - 2 only.
  with_context.context = config.task.seq_len - 1;
  // Each token is printed as it is drawn: a long generation shows its text from the first token on. A
  // token's text depends only on the one before it (a word tokenizer glues punctuation to the previous
  // word), so it is the decoded pair minus the previous token's own text.
  const std::string prompt_text = lm.decode(ids);
  std::fwrite(prompt_text.data(), 1, prompt_text.size(), stdout);
  std::fflush(stdout);
  std::optional<int32_t> previous = ids.empty() ? std::nullopt : std::optional<int32_t>(ids.back());
  with_context.on_token = [&](int32_t id) {
    std::string piece;
    if (previous) {
      const int32_t pair[] = {*previous, id};
      piece = lm.decode(pair).substr(lm.decode(std::span<const int32_t>(pair, 1)).size());
    } else {
      piece = lm.decode(std::span<const int32_t>(&id, 1));
    }
    previous = id;
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
  };
  sample_tokens(*model, ids, with_context);
  std::fputc('\n', stdout);
}

}  // namespace

void add_sample_command(CLI::App& app) {
  auto flags = std::make_shared<SampleFlags>();
  CLI::App* cmd = app.add_subcommand(
      "sample",
      "Generate text with a trained language model (a text_lm run): prints the prompt and its continuation. The "
      "model reads BOS + the text; once that is longer than the run's task.seq_len - 1 (the positions training "
      "scores), it reads BOS + the last seq_len - 2 tokens");
  cmd->add_option("RUN", flags->run, "A text_lm run folder (its config.yaml and checkpoint.bin)")->required();
  cmd->add_option("--prompt", flags->prompt,
                  "Text to continue, encoded with the run's vocabulary (char: every byte must occur in task.corpus; "
                  "word: unknown words become <unk>); may be empty")
      ->required();
  cmd->add_option("--tokens", flags->tokens, "How many tokens to generate, 0 .. 1000000")->required();
  cmd->add_option("--temperature", flags->temperature,
                  "0 = greedy (the most likely token; default), > 0 = sample from softmax(logits / T)");
  cmd->add_option("--seed", flags->seed, "Seed of temperature sampling, 0 .. 2^64-1 (default 0)");
  cmd->add_option("--checkpoint", flags->checkpoint, "Weights to use instead of RUN/checkpoint.bin");
  cmd->callback([flags] { run_sample(*flags); });
}

}  // namespace sinklab::apps
