#pragma once
// What a run records about the CPU its numbers came from (run.json, `sinklab --version`): results are
// bit-identical for the same build, config, seed, thread count and kernel path, so the path is named.
#include <string>
#include <vector>

namespace sinklab {

struct CpuDescription {
  std::string model;                  // the CPU's brand string, e.g. "Intel(R) Xeon(R) Processor"
  std::vector<std::string> features;  // the instruction-set extensions that matter to the kernels, present ones
  std::string cpu_level;              // the best ISA level the CPU supports (core/cpu/isa_level.h)
  std::string kernel_level;           // the level this process runs: cpu_level capped by SINKLAB_MAX_ISA
  // The vector length in bits where the level's is the CPU's (SVE: "512"), empty where the level fixes it:
  // a vectorized reduction's order, and so its bits, follow it.
  std::string kernel_vector_bits;
  std::string onednn_isa;             // oneDNN's effective ISA (its own choice, under the same cap)
  // "<kernel_level><kernel_vector_bits>+onednn:<onednn_isa>" (avx2+onednn:avx2, sve256+onednn:asimd): what
  // bit-identity is defined over.
  std::string kernel_path;
};

// Reads the CPU once; chooses the kernel level (and so caps oneDNN) if nothing has yet.
CpuDescription describe_cpu();

}  // namespace sinklab
