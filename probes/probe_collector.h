#pragma once
// The observer that runs probes P1-P5 on every row attention shows it (one window per forward pass,
// batch 1). Heads run in parallel (OpenMP), each thread with buffers allocated once for the longest
// length, so no row allocates. Rows: query t of window w sees n = t + 1 keys; P2-P4 skip n <= N.
// P5 and E_mc run on every `sample_stride(L)`-th row (t = stride - 1, 2 stride - 1, ...).
#include <memory>
#include <mutex>
#include <vector>

#include "probes/probe_results.h"
#include "probes/sensitivity_rows.h"
#include "core/observe/attention_observer.h"

namespace sinklab::normlimits {

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
  struct Workspace;
  void probe_head(const AttentionView& view, int head, Workspace& ws);
  void record(ViolationRecord v);
  Workspace& workspace(int thread);

  ProbeSettings settings_;
  RowKind rows_;
  SensitivityRows sensitivity_;  // P5's row map
  ProbeResults results_;
  int plan_ = 0, window_ = 0;
  std::vector<std::unique_ptr<Workspace>> workspaces_;
  std::mutex record_mutex_;
};

}  // namespace sinklab::normlimits
