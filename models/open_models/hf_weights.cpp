#include "models/open_models/hf_weights.h"

#include <nlohmann/json.hpp>

#include "core/io/file_read.h"
#include "models/open_models/hf_config.h"

namespace sinklab {
namespace {

constexpr char kSingle[] = "model.safetensors";
constexpr char kIndex[] = "model.safetensors.index.json";

bool path_exists(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(p, ec);
}

// A shard name from the index must be a plain file name inside the folder (no "../x", no "/etc/x").
bool plain_file_name(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name.find('\\') == std::string::npos &&
         name != "." && name != "..";
}

}  // namespace

HfWeights::HfWeights(const std::filesystem::path& folder) : folder_(folder) {
  const std::filesystem::path single = folder / kSingle, index = folder / kIndex;
  if (path_exists(index)) {
    sharded_ = true;
    const auto fail = [&](const std::string& why) -> void {
      throw OpenModelError("weight index " + index.string() + ": " + why);
    };
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(read_regular_file(index, 64 << 20, "weight index"));
    } catch (const nlohmann::json::exception& e) {
      fail(std::string("not valid JSON: ") + e.what());
    } catch (const FileReadError& e) {
      throw OpenModelError(e.what());
    }
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
      fail("expected a JSON object with a \"weight_map\" object {tensor name: shard file}");
    std::map<std::string, size_t> shard_index;  // file -> index into shards_
    for (const auto& [tensor, file] : j["weight_map"].items()) {
      if (!file.is_string() || !plain_file_name(file.get<std::string>()))
        fail("\"weight_map\": tensor " + tensor + " maps to " + file.dump() + ", not a file name in the folder");
      const std::string name = file.get<std::string>();
      auto it = shard_index.find(name);
      if (it == shard_index.end()) {
        if (!path_exists(folder / name))
          fail("shard " + name + " (of tensor " + tensor + ") is missing from " + folder.string() +
               ": a download that did not finish?");
        shards_.push_back(std::make_unique<SafetensorsReader>(folder / name));
        it = shard_index.emplace(name, shards_.size() - 1).first;
      }
      if (!shards_[it->second]->find(tensor))
        fail("tensor " + tensor + " is said to be in " + name + ", which does not hold it");
      shard_of_[tensor] = it->second;
    }
    if (shards_.empty()) fail("\"weight_map\" is empty");
    // A tensor that a shard holds but the index does not name would be silently skipped: refuse it.
    for (const auto& shard : shards_)
      for (const SafetensorsEntry& e : shard->entries()) {
        const auto it = shard_of_.find(e.name);
        if (it == shard_of_.end())
          fail("shard " + shard->path().filename().string() + " holds tensor " + e.name +
               ", which the index does not name");
        if (shards_[it->second].get() != shard.get())
          fail("tensor " + e.name + " is in two shards (" + shard->path().filename().string() + " and " +
               shards_[it->second]->path().filename().string() + ")");
      }
  } else if (path_exists(single)) {
    shards_.push_back(std::make_unique<SafetensorsReader>(single));
    for (const SafetensorsEntry& e : shards_[0]->entries()) shard_of_[e.name] = 0;
  } else {
    throw OpenModelError("model folder " + folder.string() + ": neither " + kSingle + " nor " + kIndex +
                         " (sinklab reads the safetensors form of a checkpoint, not pytorch_model.bin)");
  }
  count_bytes();
}

HfWeights HfWeights::single_file(const std::filesystem::path& file) {
  HfWeights w;
  w.folder_ = file.parent_path();
  w.shards_.push_back(std::make_unique<SafetensorsReader>(file));
  for (const SafetensorsEntry& e : w.shards_[0]->entries()) w.shard_of_[e.name] = 0;
  w.count_bytes();
  return w;
}

void HfWeights::count_bytes() {
  for (const auto& [name, shard] : shard_of_) {
    const SafetensorsEntry* e = shards_[shard]->find(name);
    bytes_ += e->end - e->begin;
  }
}

std::string HfWeights::where() const {
  return sharded_ || shards_.empty() ? folder_.string() : shards_[0]->path().string();
}

std::vector<std::string> HfWeights::names() const {
  std::vector<std::string> out;
  for (const auto& [name, shard] : shard_of_) out.push_back(name);
  return out;
}

const SafetensorsEntry* HfWeights::find(const std::string& name) const {
  const auto it = shard_of_.find(name);
  return it == shard_of_.end() ? nullptr : shards_[it->second]->find(name);
}

const SafetensorsReader& HfWeights::reader_of(const std::string& name) const {
  const auto it = shard_of_.find(name);
  if (it == shard_of_.end()) throw OpenModelError("weights " + where() + ": has no tensor " + name);
  return *shards_[it->second];
}

void HfWeights::read_into(const std::string& name, uint64_t begin, uint64_t count, float* out) const {
  reader_of(name).read_into(name, begin, count, out);
}

NamedTensor HfWeights::read(const std::string& name) const { return reader_of(name).read(name); }

std::string HfWeights::file_of(const std::string& name) const {
  const auto it = shard_of_.find(name);
  return it == shard_of_.end() ? folder_.string() : shards_[it->second]->path().string();
}

std::string HfWeights::description() const {
  return sharded_ ? std::to_string(shards_.size()) + " shard(s) (" + kIndex + ")"
                  : shards_.empty() ? std::string(kSingle) : shards_[0]->path().filename().string();
}

}  // namespace sinklab
