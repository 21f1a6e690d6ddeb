#pragma once
// FNV-1a 64: the one content hash of checkpoints (checksums), configs (config and model hashes), corpus
// fingerprints and sweep keys. Not cryptographic: it tells accidental change, not forgery.
#include <cstdint>
#include <string_view>

namespace sinklab {

inline constexpr uint64_t kFnv1aBasis = 0xcbf29ce484222325ULL;

// Continues hash `h` (kFnv1aBasis to start) over `bytes`, so a long input can be hashed in pieces.
inline uint64_t fnv1a(uint64_t h, std::string_view bytes) {
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

inline uint64_t fnv1a(std::string_view bytes) { return fnv1a(kFnv1aBasis, bytes); }

}  // namespace sinklab
