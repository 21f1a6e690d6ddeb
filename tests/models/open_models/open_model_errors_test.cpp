// Every way a model folder can be wrong gives one clear OpenModelError (or SafetensorsError) naming the
// file and the key or tensor, before anything big is allocated: copies of the fixtures, altered.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/io/file_read.h"
#include "models/open_models/open_model_loader.h"
#include "run_files/safetensors_file.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;
namespace st = sinklab::testing;

const fs::path kFixtures = fs::path(SINKLAB_SOURCE_DIR) / "tests/fixtures/open_models";

// A copy of a fixture folder in the test's own directory.
fs::path copy_of(const std::string& fixture) {
  const fs::path dir = st::fresh_test_dir() / fixture;
  fs::copy(kFixtures / fixture, dir, fs::copy_options::recursive);
  return dir;
}

nlohmann::json config_of(const fs::path& dir) {
  return nlohmann::json::parse(read_regular_file(dir / "config.json", 1 << 20, "test"));
}

void write_config(const fs::path& dir, const nlohmann::json& j) { st::write_text(dir / "config.json", j.dump(2)); }

std::string load_error(const fs::path& dir, OpenModelOptions options = {}) {
  try {
    load_open_model(dir, options);
  } catch (const RunFileError& e) {
    return e.what();
  } catch (const FileReadError& e) {
    return e.what();
  }
  return "no error";
}

void expect_error(const fs::path& dir, const std::string& names, const std::string& what,
                  OpenModelOptions options = {}) {
  const std::string error = load_error(dir, options);
  EXPECT_NE(error.find(names), std::string::npos) << "the message names " << names << ": " << error;
  EXPECT_NE(error.find(what), std::string::npos) << "expected \"" << what << "\" in: " << error;
}

// config.json edited by `change`, the message naming config.json and `what`.
void expect_config_error(const std::string& fixture, void (*change)(nlohmann::json&), const std::string& what) {
  const fs::path dir = copy_of(fixture);
  nlohmann::json j = config_of(dir);
  change(j);
  write_config(dir, j);
  expect_error(dir, (dir / "config.json").string(), what);
}

TEST(OpenModelErrors, ConfigAsksForWhatIsNotBuilt) {
  expect_config_error("llama", [](nlohmann::json& j) { j["model_type"] = "llamma"; }, "did you mean 'llama'");
  expect_config_error("llama", [](nlohmann::json& j) { j.erase("model_type"); }, "\"model_type\": missing");
  expect_config_error("llama", [](nlohmann::json& j) { j["hidden_act"] = "gelu"; }, "\"hidden_act\"");
  expect_config_error("llama", [](nlohmann::json& j) { j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4}}; },
                      "rope_type \"yarn\" is not computed");
  expect_config_error("llama3", [](nlohmann::json& j) { j["rope_scaling"]["beta_fast"] = 32; }, "field \"beta_fast\"");
  expect_config_error("llama", [](nlohmann::json& j) { j["quantization_config"] = {{"bits", 4}}; },
                      "\"quantization_config\": this llama loader does not know the key");
  expect_config_error("llama", [](nlohmann::json& j) { j["num_key_value_heads"] = 3; }, "does not divide");
  expect_config_error("llama", [](nlohmann::json& j) { j["hidden_size"] = "32"; }, "is not an integer");
  expect_config_error("llama", [](nlohmann::json& j) { j["num_hidden_layers"] = 0; }, "outside 1 ..");
  expect_config_error("qwen2", [](nlohmann::json& j) { j["use_sliding_window"] = true; }, "\"use_sliding_window\"");
  expect_config_error("opt", [](nlohmann::json& j) { j["do_layer_norm_before"] = false; }, "post-LN");
  expect_config_error("opt", [](nlohmann::json& j) { j["word_embed_proj_dim"] = 16; }, "\"word_embed_proj_dim\"");
  // 8 x 0.4 = 3.2: three coordinates, which no pairing can turn (the reference truncates, then fails).
  expect_config_error("gpt_neox", [](nlohmann::json& j) { j["rotary_pct"] = 0.4; }, "RoPE needs an even number");
  expect_config_error("gpt_neox", [](nlohmann::json& j) { j["hidden_act"] = "gelu_fast"; }, "\"hidden_act\"");
}

// config.json edited by `change`, contradicting the weights: the message names the weight file, the
// tensor and what config.json implies.
void expect_contradiction(const std::string& fixture, void (*change)(nlohmann::json&), const std::string& what) {
  const fs::path dir = copy_of(fixture);
  nlohmann::json j = config_of(dir);
  change(j);
  write_config(dir, j);
  expect_error(dir, dir.string() + "/model", what);
}

TEST(OpenModelErrors, ConfigThatContradictsTheWeights) {
  // A vocabulary that disagrees with the embedding: the tensor and both shapes are named.
  expect_contradiction("llama", [](nlohmann::json& j) { j["vocab_size"] = 81; },
                       "tensor model.embed_tokens.weight has shape [80, 32], expected [81, 32] from the config");
  expect_contradiction("qwen3", [](nlohmann::json& j) { j["head_dim"] = 8; },
                       "q_proj.weight has shape [64, 32], expected [32, 32] from the config");
  // Tied in config.json, a different head in the file: refused rather than choosing one.
  expect_contradiction("llama", [](nlohmann::json& j) { j["tie_word_embeddings"] = true; },
                       "tensor lm_head.weight differs from embedding.weight although tie_word_embeddings is true");
}

TEST(OpenModelErrors, BrokenFolders) {
  const fs::path empty = st::fresh_test_dir() / "empty";
  fs::create_directories(empty);
  expect_error(empty, "config.json", "no such file");
  expect_error(st::fresh_test_dir() / "absent", "absent", "not a directory");
  const fs::path dir = copy_of("gpt_neox");
  fs::remove(dir / "model.safetensors");
  expect_error(dir, "neither model.safetensors nor model.safetensors.index.json", "pytorch_model.bin");
  st::write_text(dir / "config.json", "{\"model_type\": \"gpt_neox\",");
  expect_error(dir, "config.json", "not valid JSON");
  st::write_text(dir / "config.json", "[1, 2]");
  expect_error(dir, "config.json", "not a JSON object");
}

TEST(OpenModelErrors, BrokenShards) {
  {  // a shard the index names is missing
    const fs::path dir = copy_of("llama");
    fs::remove(dir / "model-00002-of-00002.safetensors");
    expect_error(dir, "model-00002-of-00002.safetensors", "is missing");
  }
  {  // the index puts a tensor in the wrong shard
    const fs::path dir = copy_of("llama");
    nlohmann::json index =
        nlohmann::json::parse(read_regular_file(dir / "model.safetensors.index.json", 1 << 20, "test"));
    index["weight_map"]["model.norm.weight"] = index["weight_map"]["model.norm.weight"] ==
                                                       "model-00001-of-00002.safetensors"
                                                   ? "model-00002-of-00002.safetensors"
                                                   : "model-00001-of-00002.safetensors";
    st::write_text(dir / "model.safetensors.index.json", index.dump());
    expect_error(dir, "model.norm.weight", "which does not hold it");
  }
  {  // a shard path that leaves the folder
    const fs::path dir = copy_of("llama");
    nlohmann::json index =
        nlohmann::json::parse(read_regular_file(dir / "model.safetensors.index.json", 1 << 20, "test"));
    index["weight_map"]["model.norm.weight"] = "../model-00001-of-00002.safetensors";
    st::write_text(dir / "model.safetensors.index.json", index.dump());
    expect_error(dir, "model.safetensors.index.json", "not a file name in the folder");
  }
  {  // a tensor the index does not name
    const fs::path dir = copy_of("llama");
    nlohmann::json index =
        nlohmann::json::parse(read_regular_file(dir / "model.safetensors.index.json", 1 << 20, "test"));
    index["weight_map"].erase("model.norm.weight");
    st::write_text(dir / "model.safetensors.index.json", index.dump());
    expect_error(dir, "model.norm.weight", "which the index does not name");
  }
  {  // a truncated shard
    const fs::path dir = copy_of("qwen2");
    const fs::path file = dir / "model.safetensors";
    fs::resize_file(file, fs::file_size(file) - 100);
    const std::string error = load_error(dir);
    EXPECT_NE(error.find(file.string()), std::string::npos) << error;
  }
  {  // a header that lies about a tensor's size
    const fs::path dir = copy_of("opt");
    std::vector<NamedTensor> tensors = read_safetensors(dir / "model.safetensors").tensors;
    for (NamedTensor& t : tensors)
      if (t.name == "model.decoder.final_layer_norm.bias")
        t.values.push_back(0), t.shape = {static_cast<int64_t>(t.values.size())};
    write_safetensors(dir / "model.safetensors", tensors, {{"format", "pt"}});
    expect_error(dir, "model.decoder.final_layer_norm.bias", "has shape [33]");
  }
  {  // a tensor missing from the file
    const fs::path dir = copy_of("opt");
    std::vector<NamedTensor> tensors = read_safetensors(dir / "model.safetensors").tensors;
    std::erase_if(tensors, [](const NamedTensor& t) { return t.name == "model.decoder.layers.1.fc2.bias"; });
    write_safetensors(dir / "model.safetensors", tensors, {{"format", "pt"}});
    expect_error(dir, "model.decoder.layers.1.fc2.bias", "has no tensor");
  }
}

TEST(OpenModelErrors, MemoryIsCheckedBeforeLoading) {
  OpenModelOptions options;
  options.available_bytes = 1000.0;
  options.window = 1024;
  expect_error(kFixtures / "llama", "llama", "but 1000 B is available", options);
  const std::string error = load_error(kFixtures / "llama", options);
  EXPECT_NE(error.find("one window of 1024 tokens"), std::string::npos) << error;
}

}  // namespace
}  // namespace sinklab
