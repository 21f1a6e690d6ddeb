#pragma once
// Finite-difference gradient checks with a random-projection loss L = sum(out * R), R fixed and
// random (a plain sum(out) is constant under softmax and would hide wrong gradients).
// Central differences in float32: step and tolerances are chosen so that a wrong sign, a missing
// term or a factor error fails, while float32 round-off passes.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/graph.h"
#include "core/parameter_store.h"

namespace sinklab::testing {

struct GradcheckOptions {
  float step = 1e-2f;        // central-difference step
  double rtol = 2e-2;        // relative to max(|analytic|, |numeric|)
  double atol = 2e-3;        // absolute floor
  uint64_t seed = 1234;      // projection R
  int max_checks_per_tensor = 256;  // larger tensors are checked on a random subset of elements
  // Piecewise functions (relu-like normalizers inside a whole layer): an entry whose central
  // differences at step and step/2 disagree beyond the tolerance has a kink within the step and is
  // skipped; more than max_kink_share of the entries skipped fails the check.
  bool skip_kinks = false;
  double max_kink_share = 0.1;
};

struct Leaf {
  Shape shape;
  std::vector<float> values;  // empty: filled U(-1, 1) from the options' seed
  bool requires_grad = true;
};

using LeafFunction = std::function<Tensor(Graph&, std::span<const Tensor>)>;

// Gradients of sum(f(leaves) * R) with respect to every leaf that requires grad.
::testing::AssertionResult check_leaf_gradients(const LeafFunction& f, std::vector<Leaf> leaves,
                                                const GradcheckOptions& options = {});

// Gradients with respect to every parameter of a finalized store (the model builds its output in f).
::testing::AssertionResult check_parameter_gradients(ParameterStore& params, const std::function<Tensor(Graph&)>& f,
                                                     const GradcheckOptions& options = {});

// A tensor filled U(lo, hi), living in `storage` (resized); for tests that need ad-hoc inputs.
Tensor random_tensor(std::vector<float>& storage, const Shape& shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f);

}  // namespace sinklab::testing
