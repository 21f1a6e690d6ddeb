#include "report/explorer/explorer_maps.h"

#include <utility>

namespace sinklab {

ExplorerMaps explorer_maps_from(AttentionSnapshots&& s, std::string source) {
  ExplorerMaps m;
  m.steps = s.steps;
  m.layers = s.layers;
  m.heads = s.heads;
  m.rows.assign(s.positions.begin(), s.positions.end());
  m.cols = m.rows;
  m.mean = std::move(s.mean);
  m.example = std::move(s.example);
  m.roles = std::move(s.roles);
  m.tokens.assign(s.tokens.begin(), s.tokens.end());
  m.token_labels = std::move(s.token_labels);
  m.seq_len = s.seq_len;
  m.source = std::move(source);
  return m;
}

}  // namespace sinklab
