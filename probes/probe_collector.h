#pragma once
// The observer that runs the registered probes (probe_registry.h) on every row attention shows it (one
// window per forward pass, batch 1). It keeps only what every probe shares: walking layers, heads and
// rows, each row's weights, query and vectors, and the top-N scan over the length's N entries; each
// probe's hooks get their view of the row (probe_view.h). Heads run in parallel (OpenMP), each thread
// with buffers allocated once for the longest length, so no row allocates. Rows: query t of window w
// sees n = t + 1 keys; the N entries skip n <= N. E_mc and P5 sample every `sample_stride(L)`-th row.
#include <memory>
#include <vector>

#include "core/observe/attention_observer.h"
#include "probes/probe_view.h"

namespace sinklab::probes {

// Rows per window that P5 and E_mc sample: every max(1, L / 64)-th.
int sample_stride(int L);

class ProbeCollector final : public AttentionObserver {
 public:
  // lengths ascending; layers and heads of the model.
  ProbeCollector(const ProbeSettings& settings, const std::vector<int>& lengths, int layers, int heads, RowKind rows);
  ~ProbeCollector() override;

  // The next forward pass is window `window` at lengths[length_index].
  void begin_pass(int length_index, int window) {
    plan_ = length_index;
    window_ = window;
  }
  bool wants_qkv() const override { return true; }
  void on_attention(const AttentionView& view) override;

  const ProbeResults& results() const { return results_; }
  const RowKind& row_kind() const { return rows_; }

 private:
  void probe_head(const AttentionView& view, int head, ProbeWorkspace& ws);
  int load_vectors(const AttentionView& view, int head, ProbeWorkspace& ws) const;
  const double* load_params(const AttentionView& view, int head, ProbeWorkspace& ws) const;
  void scan_entries(const ProbeRow& row, int track_up_to, ProbeCounters& counts);

  ProbeSettings settings_;
  RowKind rows_;
  SensitivityRows sensitivity_;  // P5's row map
  ProbeResults results_;
  ViolationLog log_{results_.first_violations};
  int plan_ = 0, window_ = 0;
  std::vector<std::unique_ptr<ProbeWorkspace>> workspaces_;
};

}  // namespace sinklab::probes
