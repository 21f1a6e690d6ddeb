// Weights in and out (models/weight_files.h): export -> model.init_from -> export keeps every bit; a
// run started from an export of another run's final weights starts exactly where that run ended (its
// step-0 evaluation is the other run's final one, bit for bit); init_from names the first mismatch
// and the file; and the committed fixture (tests/fixtures/export/) is what an export of its config
// writes today.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config_loading/config_loader.h"
#include "config_loading/config_writer.h"
#include "core/io/file_write.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "models/model_loader.h"
#include "models/weight_files.h"
#include "run_files/npz_file.h"
#include "run_files/run_summary.h"
#include "run_files/safetensors_file.h"
#include "tests/support/test_dir.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
using sinklab::testing::fresh_test_dir;
using sinklab::testing::read_text;

ConfigVocabulary vocab() { return registered_vocabulary(); }

// The paper's 2-layer model on a small trigger task, trained for a few steps.
RunConfig tiny_config(const std::vector<std::string>& overrides = {}) {
  return parse_run_config(
      "model: {d_model: 8, layers: 2, heads: 2, head_dim: full, residual: true}\n"
      "task: {dim: 8, seq_len: 8, eval_samples: 32}\nanalysis: {eval_attention_samples: 32}\n"
      "optimizer: {lr: 1.0e-2}\n"
      "train: {batch_size: 16, max_steps: 15, log_every: 5, eval_every: 0, stop_max_abs_error: 0}\n",
      "tiny.yaml", overrides, vocab(), std::nullopt);
}

std::vector<uint32_t> bits_of(std::span<const float> v) {
  std::vector<uint32_t> out(v.size());
  std::memcpy(out.data(), v.data(), v.size_bytes());
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

// A finished run folder as `sinklab train` leaves it.
fs::path trained_run(const fs::path& run, const RunConfig& c) {
  fs::create_directories(run);
  write_file_atomically(run / "config.yaml", to_yaml(c));
  Trainer trainer(c);
  TrainOptions o;
  o.quiet = true;
  o.run_dir = run;
  trainer.run(o);
  return run;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(WeightFiles, ExportThenInitFromThenExportIsBitIdentical) {
  const fs::path dir = fresh_test_dir();
  const RunConfig c = tiny_config();
  const auto trained = load_model(trained_run(dir / "run", c));
  export_weights(*trained, dir / "a.safetensors", WeightFormat::safetensors);

  // Another seed: every parameter must come from the file, none from the initialization.
  const RunConfig from_file = tiny_config({"seed=9", "model.init_from=" + (dir / "a.safetensors").string()});
  const auto imported = build_model(from_file);
  ASSERT_NE(bits_of(build_model(tiny_config({"seed=9"}))->parameters().values()),
            bits_of(trained->parameters().values()));
  EXPECT_EQ(bits_of(imported->parameters().values()), bits_of(trained->parameters().values()));

  export_weights(*imported, dir / "b.safetensors", WeightFormat::safetensors);
  const SafetensorsContent a = read_safetensors(dir / "a.safetensors");
  const SafetensorsContent b = read_safetensors(dir / "b.safetensors");
  EXPECT_EQ(encode_safetensors(a.tensors, {}, "a"), encode_safetensors(b.tensors, {}, "b")) << "tensor bytes differ";
  // Names, shapes and order are the checkpoint's; only the recorded config differs (seed, init_from).
  ASSERT_EQ(a.tensors.size(), trained->parameters().parameters().size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const ParameterInfo& p = trained->parameters().parameters()[i];
    EXPECT_EQ(a.tensors[i].name, p.name);
    EXPECT_EQ(a.tensors[i].shape, std::vector<int64_t>(p.shape.dims.begin(), p.shape.dims.begin() + p.shape.rank));
  }
  ASSERT_EQ(a.metadata.size(), 1u);
  EXPECT_EQ(a.metadata[0].first, "sinklab_config");
  EXPECT_EQ(a.metadata[0].second, to_yaml(c));
  EXPECT_EQ(b.metadata[0].second, to_yaml(from_file));
}

TEST(WeightFiles, ARunStartedFromAnExportEvaluatesAsTheExportedRunEndedAtStepZero) {
  const fs::path dir = fresh_test_dir();
  const RunConfig c = tiny_config();
  const fs::path run = trained_run(dir / "run", c);
  const auto trained = load_model(run);
  export_weights(*trained, dir / "final.safetensors", WeightFormat::safetensors);
  const double recorded = read_run_summary(run / "summary.json").eval_mse;
  ASSERT_GT(recorded, 0);

  // train.max_steps cannot be 0: the new run's state before its first step is what is compared.
  const RunConfig next =
      tiny_config({"seed=4", "optimizer.lr=0.5", "model.init_from=" + (dir / "final.safetensors").string()});
  Trainer trainer(next);
  EXPECT_EQ(bits_of(trainer.parameters().values()), bits_of(trained->parameters().values()));
  // The trainer's own evaluation, as the exported run's was: an evaluation without attention observers
  // takes the fused kernel, which matches the observed (materialized) path closely, not bit for bit.
  const double at_step_zero = trainer.evaluate(nullptr).metrics.mse;
  EXPECT_TRUE(same_bits(at_step_zero, recorded)) << at_step_zero << " vs the exported run's final " << recorded;
}

TEST(WeightFiles, InitFromNamesTheFirstMismatchAndTheFile) {
  const fs::path dir = fresh_test_dir();
  const fs::path file = dir / "w.safetensors";
  export_weights(*build_model(tiny_config()), file, WeightFormat::safetensors);
  const std::string at = "model.init_from: safetensors file " + file.string() + ": ";
  const auto error_with = [&](std::vector<std::string> overrides) {
    overrides.push_back("model.init_from=" + file.string());
    return error_of([&] { build_model(tiny_config(overrides)); });
  };
  EXPECT_EQ(error_with({"model.heads=1"}),
            at + "parameter blocks.0.attn.w_q.weight: the file has shape [16, 8], the model [8, 8]");
  EXPECT_EQ(error_with({"model.layers=3"}),
            at + "parameter blocks.2.attn.w_q.weight: the model has it, the file does not");
  EXPECT_EQ(error_with({"model.layers=1"}),
            at + "tensor blocks.1.attn.w_q.weight is not a parameter of the model (the file must hold exactly the "
                 "model's parameters)");

  export_weights(*build_model(tiny_config()), dir / "w.npz", WeightFormat::npz);
  const std::string npz = error_of([&] { build_model(tiny_config({"model.init_from=" + (dir / "w.npz").string()})); });
  EXPECT_NE(npz.find("w.npz: an .npz file; init_from reads safetensors"), std::string::npos) << npz;
  const std::string missing =
      error_of([&] { build_model(tiny_config({"model.init_from=" + (dir / "no.safetensors").string()})); });
  EXPECT_EQ(
      missing.rfind("model.init_from: safetensors file " + (dir / "no.safetensors").string() + ": cannot open", 0), 0u)
      << missing;
  write_file_atomically(dir / "cut.safetensors", read_text(file).substr(0, 40));
  const std::string cut =
      error_of([&] { build_model(tiny_config({"model.init_from=" + (dir / "cut.safetensors").string()})); });
  EXPECT_EQ(
      cut.rfind("model.init_from: safetensors file " + (dir / "cut.safetensors").string() + ": truncated header", 0),
      0u)
      << cut;
}

// tests/fixtures/export/: model.safetensors and model.eval.safetensors as
//   build/sinklab export tests/fixtures/export/config.yaml --format safetensors
//       --out tests/fixtures/export/model.safetensors --eval-samples 4
// wrote them; tools/check_export.py checks the PyTorch twin against the same files.
fs::path fixture(const std::string& name) { return fs::path(SINKLAB_SOURCE_DIR) / "tests/fixtures/export" / name; }

TEST(ExportFixture, ReExportingTheFixtureConfigGivesTheCommittedFiles) {
  const fs::path dir = fresh_test_dir();
  const RunConfig c = load_run_config(fixture("config.yaml"), {}, vocab(), std::nullopt);
  const auto model = build_model(c);
  export_weights(*model, dir / "model.safetensors", WeightFormat::safetensors);
  EXPECT_EQ(read_text(dir / "model.safetensors"), read_text(fixture("model.safetensors"))) << "weights or config moved";

  export_evaluation(*model, 4, dir / "model.eval.safetensors", WeightFormat::safetensors);
  const SafetensorsContent now = read_safetensors(dir / "model.eval.safetensors");
  const SafetensorsContent committed = read_safetensors(fixture("model.eval.safetensors"));
  EXPECT_EQ(now.metadata, committed.metadata);
  ASSERT_EQ(now.tensors.size(), 3u);
  ASSERT_EQ(committed.tensors.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const NamedTensor &got = now.tensors[i], &want = committed.tensors[i];
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.shape, want.shape);
    if (got.name != "output") {
      EXPECT_EQ(bits_of(got.values), bits_of(want.values)) << got.name;  // the task's own draws
      continue;
    }
    // oneDNN picks its matmul kernels by CPU, which may move the last bit: 1e-6 of the largest output.
    ASSERT_EQ(got.values.size(), want.values.size());
    double scale = 0, worst = 0;
    for (size_t k = 0; k < want.values.size(); ++k) {
      scale = std::max(scale, std::fabs(static_cast<double>(want.values[k])));
      worst = std::max(worst, std::fabs(static_cast<double>(got.values[k]) - want.values[k]));
    }
    EXPECT_LE(worst, 1e-6 * scale) << "outputs moved";
  }
}

}  // namespace
}  // namespace sinklab
