#include "train/checkpoint.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace sinklab {
namespace {

constexpr char kMagic[8] = {'S', 'I', 'N', 'K', 'C', 'K', 'P', 'T'};
constexpr uint32_t kVersion = 1;

uint64_t fnv1a(const std::vector<char>& bytes) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

template <typename T>
void put(std::vector<char>& out, const T& v) {
  const char* p = reinterpret_cast<const char*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

void put_floats(std::vector<char>& out, std::span<const float> v) {
  const char* p = reinterpret_cast<const char*>(v.data());
  out.insert(out.end(), p, p + v.size_bytes());
}

class Reader {
 public:
  Reader(const std::vector<char>& bytes, const std::string& file) : bytes_(bytes), file_(file) {}
  template <typename T>
  T get() {
    T v;
    need(sizeof(T));
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  void get_floats(std::span<float> out) {
    need(out.size_bytes());
    std::memcpy(out.data(), bytes_.data() + pos_, out.size_bytes());
    pos_ += out.size_bytes();
  }
  bool at_end() const { return pos_ == bytes_.size(); }

 private:
  void need(size_t n) {
    if (pos_ + n > bytes_.size()) throw CheckpointError("checkpoint " + file_ + ": truncated");
  }
  const std::vector<char>& bytes_;
  std::string file_;
  size_t pos_ = 0;
};

}  // namespace

void save_checkpoint(const std::filesystem::path& path, uint64_t config_hash, ParameterStore& params,
                     const TrainingState& state) {
  std::vector<char> payload;
  payload.reserve(params.size() * sizeof(float) * (1 + static_cast<size_t>(params.moment_count())) + 128);
  put(payload, state.step);
  put(payload, state.optimizer_steps);
  for (uint64_t w : state.rng.words) put(payload, w);
  put(payload, static_cast<uint8_t>(state.rng.has_cached_normal));
  put(payload, state.rng.cached_normal);
  put(payload, static_cast<uint64_t>(params.size()));
  put_floats(payload, params.values());
  put(payload, static_cast<uint32_t>(params.moment_count()));
  for (int k = 0; k < params.moment_count(); ++k) put_floats(payload, params.moment(k));

  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw CheckpointError("cannot write checkpoint " + tmp.string());
    out.write(kMagic, sizeof kMagic);
    const uint64_t size = payload.size(), sum = fnv1a(payload);
    out.write(reinterpret_cast<const char*>(&kVersion), sizeof kVersion);
    out.write(reinterpret_cast<const char*>(&config_hash), sizeof config_hash);
    out.write(reinterpret_cast<const char*>(&size), sizeof size);
    out.write(reinterpret_cast<const char*>(&sum), sizeof sum);
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    if (!out.flush()) throw CheckpointError("failed writing checkpoint " + tmp.string());
  }
  std::filesystem::rename(tmp, path);
}

TrainingState load_checkpoint(const std::filesystem::path& path, uint64_t config_hash, ParameterStore& params) {
  const std::string file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError("cannot open checkpoint " + file);
  std::vector<char> all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Reader header(all, file);
  char magic[8];
  for (char& c : magic) c = header.get<char>();
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) throw CheckpointError("checkpoint " + file + ": not a sinklab checkpoint (bad magic)");
  const auto version = header.get<uint32_t>();
  if (version != kVersion)
    throw CheckpointError("checkpoint " + file + ": version " + std::to_string(version) + ", this build reads " + std::to_string(kVersion));
  const auto hash = header.get<uint64_t>();
  const auto size = header.get<uint64_t>();
  const auto sum = header.get<uint64_t>();
  constexpr size_t kHeader = 8 + 4 + 8 + 8 + 8;
  if (all.size() != kHeader + size) throw CheckpointError("checkpoint " + file + ": truncated or padded (size mismatch)");
  std::vector<char> payload(all.begin() + kHeader, all.end());
  if (fnv1a(payload) != sum) throw CheckpointError("checkpoint " + file + ": checksum mismatch (corrupt file)");
  if (hash != config_hash) throw CheckpointError("checkpoint " + file + ": written for a different config (config hash differs)");

  Reader r(payload, file);
  TrainingState s;
  s.step = r.get<int64_t>();
  s.optimizer_steps = r.get<int64_t>();
  for (uint64_t& w : s.rng.words) w = r.get<uint64_t>();
  s.rng.has_cached_normal = r.get<uint8_t>() != 0;
  s.rng.cached_normal = r.get<double>();
  if (r.get<uint64_t>() != params.size()) throw CheckpointError("checkpoint " + file + ": parameter count differs from the model");
  r.get_floats(params.values());
  const auto moments = r.get<uint32_t>();
  for (uint32_t k = 0; k < moments; ++k) r.get_floats(params.moment(static_cast<int>(k)));
  if (!r.at_end()) throw CheckpointError("checkpoint " + file + ": trailing bytes");
  return s;
}

}  // namespace sinklab
