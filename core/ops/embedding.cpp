#include "core/ops/embedding.h"

#include <stdexcept>
#include <string>

#include "core/kernels/embedding.h"
#include "core/ops/op_checks.h"

namespace sinklab {
namespace {

struct EmbeddingSaved {
  const int32_t* ids;  // the caller's, read again in backward
  int64_t n, dim;
};

void embedding_backward(const Node& nd) {
  if (!nd.inputs[0].grad()) return;
  const auto& s = nd.payload<EmbeddingSaved>();
  kernels::embedding_backward(s.ids, nd.output.grad(), nd.inputs[0].grad(), s.n, s.dim);
}

}  // namespace

Tensor embedding(Graph& g, const Tensor& table, const int32_t* ids, const Shape& ids_shape) {
  op_checks::require_contiguous("embedding", "table", table);
  if (table.rank() != 2) op_checks::fail("embedding", "table must be [V, C], got " + table.shape().str());
  if (ids_shape.rank >= kMaxRank)
    op_checks::fail("embedding",
                    "ids of shape " + ids_shape.str() + " would give an output of rank > " + std::to_string(kMaxRank));
  const int64_t n = ids_shape.numel(), vocab = table.dim(0), dim = table.dim(1);
  if (n > 0 && !ids) op_checks::fail("embedding", "ids pointer is null for ids of shape " + ids_shape.str());
  const int64_t bad = kernels::first_invalid_id(ids, n, vocab);
  if (bad >= 0)
    throw std::range_error("embedding: id " + std::to_string(ids[bad]) + " at ids" +
                           op_checks::index_str(ids_shape, bad) + " is out of range for a table of " +
                           std::to_string(vocab) + " rows");
  Shape out = ids_shape;
  out[out.rank++] = dim;
  Tensor y = g.new_tensor(out, g.needs_grad({table}));
  kernels::embedding_forward(table.data(), ids, y.data(), n, dim);
  if (y.requires_grad()) {
    Node nd;
    nd.backward = embedding_backward;
    nd.op = "embedding";
    nd.inputs = {table};
    nd.output = y;
    nd.set_payload(EmbeddingSaved{ids, n, dim});
    g.record(nd);
  }
  return y;
}

}  // namespace sinklab
