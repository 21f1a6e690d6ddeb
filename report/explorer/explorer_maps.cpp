#include "report/explorer/explorer_maps.h"

namespace sinklab {

ExplorerMaps explorer_maps_from(const AttentionSnapshots& s, std::string source) {
  ExplorerMaps m;
  m.steps = s.steps;
  m.layers = s.layers;
  m.heads = s.heads;
  m.rows.assign(s.positions.begin(), s.positions.end());
  m.cols = m.rows;
  m.mean = s.mean;
  m.example = s.example;
  m.roles = s.roles;
  m.tokens.assign(s.tokens.begin(), s.tokens.end());
  m.token_labels = s.token_labels;
  m.seq_len = s.seq_len;
  m.source = std::move(source);
  return m;
}

}  // namespace sinklab
