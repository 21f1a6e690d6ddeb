#pragma once
// The first invariant violations, shared by the heads that run in parallel (all are counted; the
// first kMaxRecorded are listed in probes.md).
#include <cstddef>
#include <mutex>
#include <vector>

#include "probes/probe_results.h"

namespace sinklab::probes {

class ViolationLog {
 public:
  static constexpr std::size_t kMaxRecorded = 20;
  explicit ViolationLog(std::vector<ViolationRecord>& into) : into_(into) {}
  void record(ViolationRecord v) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (into_.size() < kMaxRecorded) into_.push_back(std::move(v));
  }
  std::mutex& mutex() { return mutex_; }  // also guards the merge of each head's counters

 private:
  std::vector<ViolationRecord>& into_;
  std::mutex mutex_;
};

}  // namespace sinklab::probes
