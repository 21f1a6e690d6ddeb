#include "sweep/schedule_simulation.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>

namespace sinklab::sweep {

SimulatedSchedule simulate_schedule(const std::vector<double>& seconds, const std::vector<std::size_t>& order,
                                    int workers) {
  if (workers < 1) throw std::invalid_argument("a schedule needs at least one worker, not " + std::to_string(workers));
  if (order.size() != seconds.size()) throw std::invalid_argument("the order must list every run once");
  std::vector<bool> seen(seconds.size(), false);
  for (const std::size_t i : order) {
    if (i >= seconds.size() || seen[i]) throw std::invalid_argument("the order must list every run once");
    seen[i] = true;
  }
  SimulatedSchedule s;
  s.workers = workers;
  // When each worker is free next; the earliest-free worker takes the next run.
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int w = 0; w < workers; ++w) free_at.push(0.0);
  for (const std::size_t i : order) {
    const double t = seconds[i];
    if (!std::isfinite(t) || t < 0)
      throw std::invalid_argument("run " + std::to_string(i) + " has time " + std::to_string(t));
    const double start = free_at.top();
    free_at.pop();
    free_at.push(start + t);
    s.total_seconds += t;
    s.longest_seconds = std::max(s.longest_seconds, t);
    s.makespan_seconds = std::max(s.makespan_seconds, start + t);
  }
  s.ideal_seconds = s.total_seconds / workers;
  return s;
}

}  // namespace sinklab::sweep
