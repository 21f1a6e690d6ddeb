// Models outside training (models/model_loader.h): build_model is the trainer's initialization bit
// for bit; load_model of a run folder the trainer wrote forwards exactly like the trainer's model; a
// model-shaping change is refused while other keys may differ for weights (not for a resume); the
// model-shaping hash covers exactly the model's keys and the task's widths.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <fstream>
#include <string>
#include <vector>

#include "config_loading/config_loader.h"
#include "core/graph.h"
#include "core/io/file_write.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "models/model_loader.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

// Projected input and an output head, so that d_model can change without changing the task.
RunConfig config_with(const std::vector<std::string>& overrides) {
  const ConfigVocabulary vocab = registered_vocabulary();
  return parse_run_config(
      "model: {d_model: 16, layers: 2, heads: 2, residual: true, norm: layer_norm, input_projection: true,\n"
      "        output_head: true, positional: learned}\n"
      "optimizer: {lr: 3.0e-3}\n"
      "train: {batch_size: 16, max_steps: 12, log_every: 4, eval_every: 0, stop_max_abs_error: 0}\n"
      "task: {eval_samples: 32}\nanalysis: {eval_attention_samples: 32}\n",
      "tiny.yaml", overrides, vocab);
}

std::vector<uint32_t> bits_of(std::span<const float> v) {
  std::vector<uint32_t> out(v.size());
  std::memcpy(out.data(), v.data(), v.size_bytes());
  return out;
}

// A batch of the config's evaluation inputs, [batch, seq_len, input_dim].
std::vector<float> inputs_of(const RunConfig& c, int batch) {
  const auto task = make_task(c.task, c.model.residual);
  BatchBuffers b(task->shape(), batch);
  Rng rng(99);
  task->sample(batch, rng, Split::eval, b.view());
  return b.inputs;
}

std::vector<uint32_t> forward_bits(const Transformer& model, const RunConfig& c, std::vector<float> x, int batch) {
  const ModelShape shape = model_shape_of(c);
  Graph g;
  NoGradGuard no_grad(g);
  const Tensor in(x.data(), nullptr, Shape{batch, shape.max_seq_len, shape.input_dim});
  const Tensor out = model.forward(g, in);
  return bits_of({out.data(), static_cast<size_t>(out.numel())});
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

class ModelLoader : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sinklab_model_loader_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A finished run folder as `sinklab train` leaves it: config.yaml, checkpoint.bin and the rest.
  fs::path trained_run(const RunConfig& c, std::unique_ptr<Trainer>& trainer) {
    const fs::path run = dir_ / "run";
    fs::create_directories(run);
    write_file_atomically(run / "config.yaml", to_yaml(c));
    trainer = std::make_unique<Trainer>(c);
    TrainOptions o;
    o.quiet = true;
    o.run_dir = run;
    trainer->run(o);
    return run;
  }

  fs::path dir_;
};

TEST_F(ModelLoader, BuildModelIsTheTrainersInitializationBitForBit) {
  for (const uint64_t seed : {0, 7}) {
    RunConfig c = config_with({});
    c.seed = seed;
    const auto model = build_model(c);
    Trainer trainer(c);
    EXPECT_EQ(bits_of(model->parameters().values()), bits_of(trainer.parameters().values())) << "seed " << seed;
    // Spelled out as the trainer initialized before models/ existed: the first split of the seed's Rng.
    ParameterStore reference;
    Transformer network(reference, c.model, ModelShape{16, 16, 16});
    reference.finalize();
    Rng init = Rng(seed).split();
    network.initialize(init);
    EXPECT_EQ(bits_of(model->parameters().values()), bits_of(reference.values())) << "seed " << seed;
    ASSERT_EQ(model->parameters().parameters().size(), trainer.parameters().parameters().size());
    for (size_t i = 0; i < model->parameters().parameters().size(); ++i)
      EXPECT_EQ(model->parameters().parameters()[i].name, trainer.parameters().parameters()[i].name);
  }
}

TEST_F(ModelLoader, ATrainedRunFolderLoadsToAModelThatForwardsExactlyLikeTheTrainers) {
  const RunConfig c = config_with({});
  std::unique_ptr<Trainer> trainer;
  const fs::path run = trained_run(c, trainer);
  const auto x = inputs_of(c, 5);
  const auto expected = forward_bits(trainer->model(), c, x, 5);
  ASSERT_NE(bits_of(trainer->parameters().values()), bits_of(build_model(c)->parameters().values()))
      << "the run trained nothing";

  for (const fs::path& given : {run, run / "checkpoint.bin"}) {
    const auto model = load_model(given);
    EXPECT_EQ(model->config(), c);
    EXPECT_EQ(bits_of(model->parameters().values()), bits_of(trainer->parameters().values())) << given;
    EXPECT_EQ(forward_bits(model->transformer(), c, x, 5), expected) << given;
    EXPECT_EQ(model->parameters().moment_count(), 0) << "a model has no optimizer state";
  }
  const auto from_file = load_model(run / "checkpoint.bin", c);
  EXPECT_EQ(forward_bits(from_file->transformer(), c, x, 5), expected);
}

TEST_F(ModelLoader, AModelShapingChangeIsRefusedOtherChangesLoadWeightsButDoNotResume) {
  const RunConfig c = config_with({});
  std::unique_ptr<Trainer> trainer;
  const fs::path ckpt = trained_run(c, trainer) / "checkpoint.bin";

  for (const char* shaping :
       {"model.d_model=32", "model.heads=4", "task.seq_len=12", "model.attention.normalizer=relu"}) {
    const RunConfig changed = config_with({shaping});
    EXPECT_NE(error_of([&] { load_model(ckpt, changed); }).find("written for a different model"), std::string::npos)
        << shaping;
    Trainer other(changed);
    EXPECT_NE(error_of([&] { other.resume(ckpt); }).find("written for a different model"), std::string::npos)
        << shaping;
  }
  // (A larger train.max_steps resumes: it extends a finished run, tests/apps/train_extension_test.cpp.)
  for (const char* other_key : {"train.max_steps=3", "name=renamed", "threads=2", "analysis.sink_eps=0.5"}) {
    const RunConfig changed = config_with({other_key});
    std::unique_ptr<Model> model;
    ASSERT_NO_THROW(model = load_model(ckpt, changed)) << other_key;
    EXPECT_EQ(bits_of(model->parameters().values()), bits_of(trainer->parameters().values())) << other_key;
    Trainer resumed(changed);
    EXPECT_NE(error_of([&] { resumed.resume(ckpt); }).find("written for a different config"), std::string::npos)
        << other_key;
  }
}

TEST_F(ModelLoader, TheModelShapingHashCoversTheModelKeysAndTheTasksWidthsOnly) {
  const RunConfig c = config_with({});
  const auto hash_of = [](const RunConfig& config) { return build_model(config)->checkpoint_hashes(); };
  const CheckpointHashes base = hash_of(c);
  EXPECT_EQ(hash_of(config_with({})).model, base.model);
  for (const char* key :
       {"model.layers=3", "model.init_std=0.05", "model.attention.scale=inv_sqrt_head_dim", "task.dim=8"})
    EXPECT_NE(hash_of(config_with({key})).model, base.model) << key;
  for (const char* key : {"seed=3", "optimizer.lr=0.01", "task.eval_seed=5", "train.batch_size=8"}) {
    const CheckpointHashes h = hash_of(config_with({key}));
    EXPECT_EQ(h.model, base.model) << key;
    EXPECT_NE(h.config, base.config) << key;
  }
  // The relu divisor does not belong with softmax: like to_yaml, the hash leaves it out (such a config
  // cannot build a model, so the hash is computed directly).
  RunConfig divisor = c;
  divisor.model.attention.normalizer.options.set("divisor", std::string("seq_len"));
  const ModelShape base_shape = model_shape_of(c);
  EXPECT_EQ(model_shaping_hash(divisor, base_shape.input_dim, base_shape.output_dim, base_shape.max_seq_len),
            base.model);
  const RunConfig relu = config_with({"model.attention.normalizer=relu"});
  RunConfig relu_divisor = relu;
  relu_divisor.model.attention.normalizer.options.set("divisor", std::string("seq_len"));
  EXPECT_NE(hash_of(relu_divisor).model, hash_of(relu).model);
  // The task's widths and length enter through the shape.
  const ModelShape shape = model_shape_of(c);
  EXPECT_EQ(base.model, model_shaping_hash(c, shape.input_dim, shape.output_dim, shape.max_seq_len));
  EXPECT_NE(base.model, model_shaping_hash(c, shape.input_dim, shape.output_dim + 1, shape.max_seq_len));
}

TEST_F(ModelLoader, AFolderWithoutACheckpointOrWithABrokenOneIsACheckpointError) {
  const RunConfig c = config_with({});
  const fs::path run = dir_ / "unstarted";
  fs::create_directories(run);
  write_file_atomically(run / "config.yaml", to_yaml(c));
  try {
    load_model(run);
    ADD_FAILURE() << "expected a CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find((run / "checkpoint.bin").string() + ": cannot open"), std::string::npos)
        << e.what();
  }
  std::ofstream(run / "checkpoint.bin", std::ios::binary) << "SINKCKPT but not really a checkpoint";
  EXPECT_THROW(load_model(run), CheckpointError);
  try {
    load_model(dir_ / "no_such_run");
    ADD_FAILURE() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_run: no such run folder or checkpoint file"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sinklab
