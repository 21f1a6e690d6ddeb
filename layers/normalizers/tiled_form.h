#pragma once
// How a normalizer's rows can be computed tile by tile (layers/tiled_attention.h), without ever
// holding a whole [T, T] block: a normalizer that can returns its TiledForm from tiled_form(); one
// whose row needs every key at once (sort / threshold: sparsemax, entmax15) or whose learned
// per-head parameters are not tiled returns none and keeps the materialized path.
//   softmax rows:     a_ik = exp(m x_ik) / (exp(c) + sum_j exp(m x_ij))   (online: running max and
//                     sum; c = slot_logit, a virtual slot with value 0, -inf for plain softmax;
//                     softmax_head_slot: c is the head's learned parameter, sink_logit's S_h;
//                     softmax_log_keys: m = s_h ln(i + 1) on row i, s_h the head's learned
//                     parameter, ssmax's scale)
//   elementwise rows: a_ik = f(x_ik) / c_i, c_i a function of the position only (row_divisor.h)
// x_ik is the attention's scaled logit; m = logit_multiplier (softmax's 1 / temperature).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace sinklab {

struct TiledForm {
  enum class Rows : uint8_t { softmax, softmax_head_slot, softmax_log_keys, elementwise };
  // elementwise f: max(x, 0), max(x, 0)^2, sigma(x + b), elu(x) + 1
  enum class Map : uint8_t { relu, relu2, sigmoid, elu1 };
  // The positional divisors of layers/normalizers/row_divisor.h (row_sum is not positional).
  enum class Divisor : uint8_t { visible_non_bos, visible, seq_len, none };
  enum class Bias : uint8_t { zero, neg_log_seq_len };  // sigmoid's b: 0 or -ln T

  Rows rows = Rows::softmax;
  Map map = Map::relu;
  Divisor divisor = Divisor::none;
  Bias bias = Bias::zero;
  float logit_multiplier = 1.0f;
  float slot_logit = -std::numeric_limits<float>::infinity();

  static TiledForm softmax(float inv_temperature, float slot = -std::numeric_limits<float>::infinity()) {
    return {Rows::softmax, Map::relu, Divisor::none, Bias::zero, inv_temperature, slot};
  }
  static TiledForm softmax_with_head_slot() {
    return {Rows::softmax_head_slot, Map::relu, Divisor::none, Bias::zero, 1.0f, 0.0f};
  }
  static TiledForm softmax_scaled_by_log_keys() {
    return {
        Rows::softmax_log_keys, Map::relu, Divisor::none, Bias::zero, 1.0f, -std::numeric_limits<float>::infinity()};
  }
  static TiledForm elementwise(Map f, Divisor c, Bias b = Bias::zero) {
    return {Rows::elementwise, f, c, b, 1.0f, -std::numeric_limits<float>::infinity()};
  }

  // c_i of row `query` (0-based) in a sequence of seq_len.
  float divisor_of(int query, int seq_len) const {
    switch (divisor) {
      case Divisor::visible_non_bos: return static_cast<float>(std::max(query, 1));
      case Divisor::visible: return static_cast<float>(query + 1);
      case Divisor::seq_len: return static_cast<float>(seq_len);
      case Divisor::none: return 1.0f;
    }
    return 1.0f;
  }
  bool is_softmax() const { return rows != Rows::elementwise; }
  // Rows that read one learned parameter per head ([H, 1], with its gradient).
  bool learns_head_param() const { return rows == Rows::softmax_head_slot || rows == Rows::softmax_log_keys; }
  float bias_for(int seq_len) const {
    return bias == Bias::neg_log_seq_len ? -std::log(static_cast<float>(seq_len)) : 0.0f;
  }
};

}  // namespace sinklab
