#include "run_files/attention_map_files.h"

#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "run_files/npy.h"

namespace sinklab {

const char* attention_map_kind_name(AttentionMapKind kind) {
  switch (kind) {
    case AttentionMapKind::mean: return "mean";
    case AttentionMapKind::stddev: return "std";
    case AttentionMapKind::sample0: return "sample0";
  }
  return "unknown";
}

std::filesystem::path attention_map_path(const std::filesystem::path& dir, int layer, int head, AttentionMapKind kind) {
  return dir / ("layer" + std::to_string(layer) + "_head" + std::to_string(head) + "_" +
                attention_map_kind_name(kind) + ".npy");
}

void write_attention_maps(const std::filesystem::path& dir, const AttentionMapAccumulator& maps) {
  std::error_code ec;
  // Never write through a symlink planted in a run folder.
  if (std::filesystem::is_symlink(dir))
    throw AttentionMapsError("attention maps: " + dir.string() + " is a symlink, refusing to write through it");
  std::filesystem::create_directories(dir, ec);
  if (ec) throw AttentionMapsError("attention maps: cannot create directory " + dir.string() + ": " + ec.message());
  const std::vector<int64_t> shape = {maps.side(), maps.side()};
  for (int l = 0; l < maps.layers(); ++l)
    for (int h = 0; h < maps.heads(); ++h) {
      write_npy(attention_map_path(dir, l, h, AttentionMapKind::mean), maps.mean(l, h), shape);
      write_npy(attention_map_path(dir, l, h, AttentionMapKind::stddev), maps.stddev(l, h), shape);
      write_npy(attention_map_path(dir, l, h, AttentionMapKind::sample0), maps.sample0(l, h), shape);
    }
}

}  // namespace sinklab
