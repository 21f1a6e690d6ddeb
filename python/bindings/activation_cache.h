#pragma once
// The activations of one evaluation pass, kept where the pass computed them: the cache owns the pass's
// graph (its arena), and every array it hands out is a view into it. Nothing is copied.
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace sinklab::python {

class ActivationCache {
 public:
  explicit ActivationCache(std::shared_ptr<Graph> graph) : graph_(std::move(graph)) {}
  void add(std::string name, const Tensor& value) { entries_.push_back({std::move(name), value}); }
  // The entry called `name`, or nullptr.
  const Tensor* find(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::shared_ptr<Graph>& graph() const { return graph_; }

 private:
  struct Entry {
    std::string name;
    Tensor value;
  };
  std::shared_ptr<Graph> graph_;
  std::vector<Entry> entries_;
};

}  // namespace sinklab::python
