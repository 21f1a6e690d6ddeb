#include "run_files/run_provenance.h"

#include <dnnl.h>
#include <unistd.h>

#include <chrono>
#include <ctime>

#include "core/cpu/cpu_description.h"
#include "core/io/file_read.h"
#include "core/io/file_write.h"
#include "run_files/run_summary.h"  // RunFileError
#include "git_revision.h"  // generated at build time (cmake/git_revision.cmake)

#ifndef SINKLAB_YAML_CPP_VERSION
#define SINKLAB_YAML_CPP_VERSION "unknown"
#endif

namespace sinklab {

std::string git_revision() { return SINKLAB_GIT_REVISION; }

nlohmann::json provenance(const std::vector<std::string>& command_line, int threads, uint64_t seed) {
  const dnnl_version_t* dnnl = dnnl_version();
  const CpuDescription cpu = describe_cpu();
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {
      {"git_revision", git_revision()},
      {"seed", seed},
      {"threads", threads},
      {"command_line", command_line},
      {"started_utc", when},
      {"host", host},
      {"compiler", __VERSION__},
      // Bit-identical results need the same kernel path too (docs/reproducibility.md).
      {"cpu",
       {{"model", cpu.model},
        {"features", cpu.features},
        {"cpu_level", cpu.cpu_level},
        {"kernel_level", cpu.kernel_level},
        {"kernel_vector_bits", cpu.kernel_vector_bits},
        {"onednn_isa", cpu.onednn_isa},
        {"kernel_path", cpu.kernel_path}}},
      {"libraries",
       {
           {"onednn",
            std::to_string(dnnl->major) + "." + std::to_string(dnnl->minor) + "." + std::to_string(dnnl->patch)},
           {"yaml-cpp", SINKLAB_YAML_CPP_VERSION},
           {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                                 std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                                 std::to_string(NLOHMANN_JSON_VERSION_PATCH)},
#ifdef _OPENMP
           {"openmp", _OPENMP},
#endif
       }},
  };
}

void write_provenance(const std::filesystem::path& run_dir, const nlohmann::json& info) {
  write_file_atomically(run_dir / "run.json", info.dump(2) + "\n");
}

nlohmann::json read_provenance(const std::filesystem::path& path) {
  constexpr uint64_t kMaxProvenanceBytes = 1 << 20;  // a few kB when written
  std::string text;
  try {
    text = read_regular_file(path, kMaxProvenanceBytes, "run info");
  } catch (const FileReadError& e) {
    throw RunFileError(e.what());
  }
  nlohmann::json info;
  try {
    info = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
    throw RunFileError(path.string() + ": invalid JSON: " + e.what());
  }
  if (!info.is_object()) throw RunFileError(path.string() + ": expected a JSON object, got " + info.type_name());
  return info;
}

}  // namespace sinklab
