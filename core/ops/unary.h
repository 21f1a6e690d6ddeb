#pragma once
// Unary elementwise ops with autodiff. Inputs may be strided views; outputs are contiguous.
#include "core/graph.h"

namespace sinklab {

Tensor exp(Graph& g, const Tensor& x);
Tensor log(Graph& g, const Tensor& x);  // no domain check: x <= 0 gives -inf / NaN as in PyTorch
Tensor tanh(Graph& g, const Tensor& x);
Tensor sigmoid(Graph& g, const Tensor& x);
Tensor relu(Graph& g, const Tensor& x);  // gradient 0 at x = 0 (PyTorch's convention)
Tensor gelu(Graph& g, const Tensor& x);  // exact: x * Phi(x) with Phi the normal CDF (erf form)
// GPT-2's tanh approximation ("gelu_new"): x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
Tensor gelu_tanh(Graph& g, const Tensor& x);

}  // namespace sinklab
