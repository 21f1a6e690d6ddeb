#include "train/checkpoint.h"

#include <cstring>
#include <string>
#include <vector>

#include "core/io/file_read.h"
#include "core/io/file_write.h"

namespace sinklab {
namespace {

constexpr char kMagic[8] = {'S', 'I', 'N', 'K', 'C', 'K', 'P', 'T'};
constexpr uint32_t kVersion = 2;
constexpr uint32_t kMaxMoments = 2;  // Adam's two; moments are allocated on the optimizer's first step
constexpr size_t kHeaderBytes = 8 + 4 + 8 + 8 + 8;
// Payload bytes besides the float blocks: 2 x i64, RNG (4 x u64 + u8 + f64), u64, u8, f64, u64, u32.
constexpr size_t kFixedPayloadBytes = 16 + 41 + 8 + 1 + 8 + 8 + 4;

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
  put(payload, state.metrics_lines);
  put(payload, static_cast<uint8_t>(state.stop));
  put(payload, state.last_loss);
  put(payload, static_cast<uint64_t>(params.size()));
  put_floats(payload, params.values());
  put(payload, static_cast<uint32_t>(params.moment_count()));
  for (int k = 0; k < params.moment_count(); ++k) put_floats(payload, params.moment(k));

  std::vector<char> file;
  file.reserve(kHeaderBytes + payload.size());
  file.insert(file.end(), kMagic, kMagic + sizeof kMagic);
  put(file, kVersion);
  put(file, config_hash);
  put(file, static_cast<uint64_t>(payload.size()));
  put(file, fnv1a(payload));
  file.insert(file.end(), payload.begin(), payload.end());
  write_file_atomically(path, std::string_view(file.data(), file.size()));
}

TrainingState load_checkpoint(const std::filesystem::path& path, uint64_t config_hash, ParameterStore& params) {
  const std::string file = path.string();
  // The model fixes the size: anything longer (or a device such as /dev/zero) is refused unread.
  const uint64_t expected = kHeaderBytes + kFixedPayloadBytes + params.size() * sizeof(float) * (1 + kMaxMoments);
  std::vector<char> all;
  try {
    const std::string bytes = read_regular_file(path, expected, "checkpoint");
    all.assign(bytes.begin(), bytes.end());
  } catch (const FileReadError& e) {
    throw CheckpointError(e.what());
  }
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
  if (all.size() != kHeaderBytes + size) throw CheckpointError("checkpoint " + file + ": truncated or padded (size mismatch)");
  std::vector<char> payload(all.begin() + kHeaderBytes, all.end());
  if (fnv1a(payload) != sum) throw CheckpointError("checkpoint " + file + ": checksum mismatch (corrupt file)");
  if (hash != config_hash) throw CheckpointError("checkpoint " + file + ": written for a different config (config hash differs)");

  Reader r(payload, file);
  TrainingState s;
  s.step = r.get<int64_t>();
  s.optimizer_steps = r.get<int64_t>();
  for (uint64_t& w : s.rng.words) w = r.get<uint64_t>();
  s.rng.has_cached_normal = r.get<uint8_t>() != 0;
  s.rng.cached_normal = r.get<double>();
  s.metrics_lines = r.get<uint64_t>();
  const auto stop = r.get<uint8_t>();
  if (stop > static_cast<uint8_t>(StopRule::loss)) throw CheckpointError("checkpoint " + file + ": unknown stop rule code " + std::to_string(stop));
  s.stop = static_cast<StopRule>(stop);
  s.last_loss = r.get<double>();
  if (r.get<uint64_t>() != params.size()) throw CheckpointError("checkpoint " + file + ": parameter count differs from the model");
  r.get_floats(params.values());
  const auto moments = r.get<uint32_t>();
  if (moments > kMaxMoments)
    throw CheckpointError("checkpoint " + file + ": has " + std::to_string(moments) + " optimizer moment blocks, at most " +
                          std::to_string(kMaxMoments) + " exist");
  for (uint32_t k = 0; k < moments; ++k) r.get_floats(params.moment(static_cast<int>(k)));
  if (!r.at_end()) throw CheckpointError("checkpoint " + file + ": trailing bytes");
  return s;
}

}  // namespace sinklab
