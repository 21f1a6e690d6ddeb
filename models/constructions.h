#pragma once
// The explicit weights of the sink paper's theorems (docs/reproducing-sinks.md, "Explicit
// constructions"): one attention head that solves the trigger-conditional task, written into a model of
// a base config. Layout [out, in]; head 0 of block 0 is rows 0..d-1 of w_q / w_k / w_v and columns
// 0..d-1 of w_o; every other entry of every parameter is 0, so the other heads attend uniformly
// (softmax) or not at all (relu) and add nothing.
//   relu:    W_Q[0][1] = c; W_K[0][1] = W_K[0][d-1] = 1; W_V = I with W_V[0][0] = 0; W_O = I / c.
//            Only the trigger row scores (c on every non-BOS key): weights c / j there, 0 elsewhere.
//   softmax: W_Q[0][0] = W_Q[0][d-1] = beta, W_Q[0][1] = -beta; W_K[0][0] = 1; W_V = I with W_V[0][0] = 0;
//            W_O = I. BOS scores beta from BOS and ordinary rows (a sink of e^beta / (e^beta + i)) and
//            -beta from the trigger row; W_V maps BOS to 0, so the sink adds nothing.
// With the residual stream (layers > 1) the stack returns x + that head's output, the residual target.
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "config_loading/run_config.h"
#include "core/options/enum_names.h"
#include "models/model.h"

namespace sinklab {

enum class ConstructionKind : uint8_t { relu, softmax };

template <>
struct EnumNames<ConstructionKind> {
  static constexpr std::array<std::string_view, 2> values{"relu", "softmax"};
};

struct ConstructionParams {
  double beta = 20.0;  // softmax: the BOS logit; the error is 14 / (e^beta + 15) at d = L = 16, j = 7
  double c = 1.0;      // relu: the trigger row's logit on every non-BOS key
};

// A base config (or parameter) that cannot hold the construction. key() is the first offending
// config key (or the flag, "--beta" / "--c"); what() is "key: detail".
class ConstructionError : public std::invalid_argument {
 public:
  ConstructionError(std::string key, std::string detail);
  const std::string& key() const { return key_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string key_, detail_;
};

// Checks, in this order, and throws ConstructionError naming the first key that fails: task.name
// (trigger_conditional), model.input (vectors), model.input_projection (false), model.d_model
// (= task.dim), model.head_dim (full), model.norm (none), model.mlp_hidden (0), model.bias (false),
// model.positional (none), model.output_head (false), model.attention.scale (none),
// model.attention.key_bias (false), model.attention.normalizer.name (the kind), its options (softmax:
// temperature 1; relu: divisor visible_non_bos), model.residual (true when layers > 1: the sum travels
// in the residual stream), task.target (residual exactly when model.residual).
void check_construction_base(const RunConfig& config, ConstructionKind kind);

// beta (softmax) and c (relu) must be > 0 and finite in float32, and so must 1 / c.
void check_construction_params(ConstructionKind kind, const ConstructionParams& params);

// The model of `config` with the construction's weights (both checks above first).
std::unique_ptr<Model> build_construction(const RunConfig& config, ConstructionKind kind,
                                          const ConstructionParams& params);

}  // namespace sinklab
