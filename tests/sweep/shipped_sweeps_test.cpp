// The sweep files in configs/ must stay valid as the config schema evolves.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <map>
#include <utility>

#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"
#include "sweep/sweep_validation.h"

namespace sinklab::sweep {
namespace {

const std::filesystem::path kConfigs = std::filesystem::path(SINKLAB_SOURCE_DIR) / "configs";

// The committed KJV excerpt repeated 64 times, so that its validation part (5 %) holds the 1,024-token
// windows of configs/sweeps/lm_sinks_context.yaml; written once per test process.
std::string long_fixture_corpus() {
  static const std::string path = [] {
    const auto file = std::filesystem::path(::testing::TempDir()) / "kjv_excerpt_x64.txt";
    std::ifstream excerpt(std::filesystem::path(SINKLAB_SOURCE_DIR) / "tests/fixtures/corpus/kjv_excerpt.txt");
    const std::string text((std::istreambuf_iterator<char>(excerpt)), std::istreambuf_iterator<char>());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    for (int i = 0; i < 64; ++i) out << text;
    return file.string();
  }();
  return path;
}

// A run whose config names a text corpus (task.corpus) reads the test fixture instead, which has the
// same 63 distinct bytes as the KJV of scripts/get_corpus.sh: the tests must not need that download.
// A word model's vocabulary shrinks to what the excerpt has (263 distinct words).
void use_fixture_corpus(std::vector<PlannedRun>& runs) {
  for (PlannedRun& run : runs) {
    std::ifstream in(run.config);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\n  corpus:") != std::string::npos)
      run.overrides.push_back({"task.corpus", long_fixture_corpus()});
    // The excerpt's training part has ~1400 words: a corpus prefix of more is refused, so take 1000.
    for (Override& o : run.overrides)
      if (o.key == "task.train_tokens" && o.value != "0") o.value = "1000";
    // A word model (unless the variant switches its tokenizer, as a byte-level variant does).
    const bool switched = std::any_of(run.overrides.begin(), run.overrides.end(),
                                      [](const Override& o) { return o.key == "task.tokenizer" && o.value != "word"; });
    if (text.find("\n  tokenizer: word") != std::string::npos && !switched) {
      run.overrides.push_back({"task.vocab_size", "256"});
      run.overrides.push_back({"model.vocab_size", "256"});
    }
  }
}

std::vector<PlannedRun> plan_and_validate(const std::filesystem::path& file) {
  const SweepSpec spec = load_sweep_spec(file);
  std::vector<PlannedRun> runs = expand_sweep(spec);
  use_fixture_corpus(runs);
  validate_sweep(spec, runs, ConfigVocabulary{});
  return runs;
}

TEST(ShippedSweeps, PaperReproductionIsSixRunsTimesFiveSeeds) {
  const auto runs = plan_and_validate(kConfigs / "paper/reproduce.yaml");
  ASSERT_EQ(runs.size(), 30u);
  EXPECT_EQ(runs.front().id, "1x1_softmax_seed=0");
  EXPECT_EQ(runs.back().id, "4x4_relu_seed=4");
  EXPECT_EQ(runs[7].label, "1x1_relu");
  EXPECT_EQ(runs[7].seed, 2);
  EXPECT_EQ(runs[7].config.filename(), "1x1_relu.yaml");
}

// `scripts/demo.sh --short` and the single-layer sweep (docs/arm64.md): the same runs of the full
// reproduction, under the same ids.
TEST(ShippedSweeps, ShorterPaperReproductionsAreTheFirstRunsOfTheFullOne) {
  const auto full = plan_and_validate(kConfigs / "paper/reproduce.yaml");
  for (const auto& [file, count] : {std::pair{"paper/reproduce_short.yaml", 20u}, {"paper/reproduce_1x1.yaml", 10u}}) {
    SCOPED_TRACE(file);
    const auto runs = plan_and_validate(kConfigs / file);
    ASSERT_EQ(runs.size(), count);
    for (size_t i = 0; i < runs.size(); ++i) {
      EXPECT_EQ(runs[i].id, full[i].id);
      EXPECT_EQ(runs[i].config, full[i].config);
      EXPECT_EQ(runs[i].seed, full[i].seed);
    }
  }
}

TEST(ShippedSweeps, LearningRateSweepIsLabelledByTheRateAlone) {
  const SweepSpec spec = load_sweep_spec(kConfigs / "sweeps/lr_1x1_softmax.yaml");
  EXPECT_EQ(spec.title, "lr-1x1-softmax");
  const auto runs = expand_sweep(spec);
  ASSERT_EQ(runs.size(), 9u);
  EXPECT_EQ(runs[0].label, "lr=0.003");  // was "1x1_softmax lr=0.003": one config, so only lr differs
  EXPECT_EQ(runs[8].label, "lr=3e-4");
  EXPECT_EQ(runs[0].id, "1x1_softmax_lr=0.003_seed=0");
}

// Every row of the zoo table (docs/compare.md), five seeds, the spec's step caps, a class and a
// prediction for each.
void check_zoo_sweep(const std::string& file, const std::string& base, const std::string& cap) {
  SCOPED_TRACE(file);
  const SweepSpec spec = load_sweep_spec(kConfigs / "sweeps" / file);
  ASSERT_EQ(spec.variants.size(), 24u);
  std::map<std::string, int> per_class;
  for (const auto& v : spec.variants) {
    EXPECT_EQ(v.config.filename(), base) << v.name;
    EXPECT_FALSE(v.predicted.empty()) << v.name;
    ++per_class[v.sink_class];
  }
  EXPECT_EQ(per_class, (std::map<std::string, int>{{"S", 9}, {"V", 3}, {"Z", 5}, {"C", 1}, {"G", 2}, {"U", 4}}));
  const auto runs = plan_and_validate(kConfigs / "sweeps" / file);
  ASSERT_EQ(runs.size(), 24u * 5);
  for (const auto& run : runs) {
    const auto cap_set = std::find_if(run.overrides.begin(), run.overrides.end(),
                                      [](const Override& o) { return o.key == "train.max_steps"; });
    ASSERT_NE(cap_set, run.overrides.end()) << run.id;
    EXPECT_EQ(cap_set->value, cap) << run.id;
    EXPECT_EQ(run.label, run.variant_name);  // the one-value step cap stays out of the labels
  }
  EXPECT_EQ(runs.front().id, "softmax_T0.1_max_steps=" + cap + "_seed=0");
  EXPECT_EQ(runs.back().id, "key_bias_softmax_max_steps=" + cap + "_seed=4");
}

TEST(ShippedSweeps, ZooSweepsHoldEveryNormalizerWithClassAndPrediction) {
  check_zoo_sweep("zoo_1x1.yaml", "1x1_softmax.yaml", "20000");
  check_zoo_sweep("zoo_2x2.yaml", "2x2_softmax.yaml", "30000");
}

// Sweeps over text tasks read data/corpora/kjv.txt relative to the working directory, and
// scripts/get_corpus.sh may not have run here: they validate in a folder where that path holds the
// committed KJV excerpt (the same 63 distinct bytes, so the same model.vocab_size).
class WorkingDirectoryWithCorpus {
 public:
  WorkingDirectoryWithCorpus() : previous_(std::filesystem::current_path()) {
    const auto dir = std::filesystem::path(::testing::TempDir()) / "shipped_sweeps_cwd";
    std::filesystem::create_directories(dir / "data/corpora");
    std::filesystem::copy_file(std::filesystem::path(SINKLAB_SOURCE_DIR) / "tests/fixtures/corpus/kjv_excerpt.txt",
                               dir / "data/corpora/kjv.txt", std::filesystem::copy_options::overwrite_existing);
    std::filesystem::current_path(dir);
  }
  ~WorkingDirectoryWithCorpus() { std::filesystem::current_path(previous_); }

 private:
  std::filesystem::path previous_;
};

TEST(ShippedSweeps, EveryExampleExpandsAndValidates) {
  const WorkingDirectoryWithCorpus cwd;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kConfigs / "sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    EXPECT_FALSE(plan_and_validate(entry.path()).empty());
  }
  EXPECT_GE(files, 3);
}

}  // namespace
}  // namespace sinklab::sweep
