#pragma once
// Gated attention (Qiu et al. 2025): softmax rows, and the attention module multiplies each head's
// output by a query-dependent gate sigmoid(x_i W_g^T) before W_O (layers/multi_head_attention.cpp),
// one gate per head (`gate: per_head`, W_g [H, d_model]) or per channel (`elementwise`, [H*D, d_model]).
// The rows themselves are plain softmax rows; output_gate() tells the module which gate to build.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_normalizer.h"
#include "layers/normalizers/softmax_normalizer.h"

namespace sinklab {

class GatedSoftmaxNormalizer final : public RowNormalizer<GatedSoftmaxNormalizer> {
 public:
  explicit GatedSoftmaxNormalizer(OutputGate gate = OutputGate::per_head);
  std::string_view name() const override { return "gated_softmax"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  OutputGate output_gate() const override { return gate_; }
  RowMass row_mass_kind() const override { return RowMass::simplex; }
  // Plain softmax rows: the gate multiplies the heads' output after them.
  std::optional<TiledForm> tiled_form() const override { return softmax_.tiled_form(); }
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;

 private:
  OutputGate gate_;
  SoftmaxNormalizer softmax_;  // the rows, block kernels included
};

NormalizerRegistration gated_softmax_normalizer_registration();

}  // namespace sinklab
