#include "run_files/run_provenance.h"

#include <dnnl.h>
#include <unistd.h>

#include <algorithm>
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

namespace {

// The kernel path a run.json (or provenance()) names, or "unknown" for one written without it.
std::string kernel_path_of(const nlohmann::json& info) {
  const auto cpu = info.find("cpu");
  if (cpu == info.end() || !cpu->is_object()) return "unknown";
  return cpu->value("kernel_path", std::string("unknown"));
}

}  // namespace

std::string record_resumption(const std::filesystem::path& run_dir, int64_t from_step, const nlohmann::json& now) {
  const std::filesystem::path path = run_dir / "run.json";
  nlohmann::json info = read_provenance(path);
  nlohmann::json& pieces = info["resumed"];
  if (pieces.is_null()) pieces = nlohmann::json::array();
  if (!pieces.is_array()) throw RunFileError(path.string() + ": \"resumed\" is not a list");
  const std::string revision = now.value("git_revision", std::string("unknown"));
  const std::string kernel_path = kernel_path_of(now);
  pieces.push_back({{"from_step", from_step},
                    {"git_revision", revision},
                    {"kernel_path", kernel_path},
                    {"threads", now.value("threads", 0)},
                    {"host", now.value("host", std::string("unknown"))},
                    {"command_line", now.value("command_line", nlohmann::json::array())},
                    {"started_utc", now.value("started_utc", std::string("unknown"))}});
  write_provenance(run_dir, info);
  const std::string first_revision = info.value("git_revision", std::string("unknown"));
  const std::string first_path = kernel_path_of(info);
  if (first_revision == revision && first_path == kernel_path) return "";
  return "note: " + run_dir.string() + " was started by git " + first_revision + " on kernel path " + first_path +
         " and resumes from step " + std::to_string(from_step) + " with git " + revision + " on kernel path " +
         kernel_path +
         "; run.json lists each piece (\"resumed\"), and the result is bit for bit an uninterrupted "
         "run's only on one build and kernel path (docs/reproducibility.md)";
}

int64_t last_piece_start(const nlohmann::json& info, const std::filesystem::path& path) {
  const auto pieces = info.find("resumed");
  if (pieces == info.end() || pieces->is_null()) return 0;
  if (!pieces->is_array()) throw RunFileError(path.string() + ": \"resumed\" is not a list");
  int64_t start = 0;
  for (const nlohmann::json& piece : *pieces) {
    const auto step = piece.is_object() ? piece.find("from_step") : piece.end();
    if (!piece.is_object() || step == piece.end() || !step->is_number_integer() || step->get<int64_t>() < 0)
      throw RunFileError(path.string() + ": an entry of \"resumed\" has no \"from_step\" (a step number)");
    start = std::max(start, step->get<int64_t>());
  }
  return start;
}

}  // namespace sinklab
